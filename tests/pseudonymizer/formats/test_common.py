from __future__ import annotations

import io

import pytest

from pseudonymizer.formats import FormatError
from pseudonymizer.formats._common import iter_text_chunks

TEXT = "🎉 a\r\nقابلت Moshe 😀😀 Jose\u0301 \U0001f1e9\U0001f1ea."


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 64])
def test_chunks_never_cut_a_character(size: int) -> None:
    data = b"\xef\xbb\xbf" + TEXT.encode("utf-8")

    chunks = list(iter_text_chunks(io.BytesIO(data), "t.json", size=size))

    assert "".join(chunks) == TEXT


@pytest.mark.parametrize("size", [1, 4, 64])
def test_chunks_name_the_line_and_byte_of_invalid_utf8(size: int) -> None:
    data = "ab\nçd\n".encode() + b"x\xc3(\n"

    with pytest.raises(FormatError) as error:
        list(iter_text_chunks(io.BytesIO(data), "t.json", size=size))

    assert (error.value.line, error.value.reason) == (3, "invalid UTF-8 at byte 8")


def test_a_character_cut_by_the_end_of_the_file_is_invalid() -> None:
    with pytest.raises(FormatError) as error:
        list(iter_text_chunks(io.BytesIO(b"ok\n\xf0\x9f"), "t.json", size=2))

    assert (error.value.line, error.value.reason) == (2, "invalid UTF-8 at byte 3")
