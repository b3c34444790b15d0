from __future__ import annotations

from pathlib import Path

import pytest

from pseudonymizer.formats import FormatError, detect_format, read_documents
from pseudonymizer.formats.webanno import unescape_text, unescape_value
from tests.pseudonymizer.formats.helpers import ACUTE, surfaces

HEADER = (
    "#FORMAT=WebAnno TSV 3.3\n"
    "#T_SP=de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity|identifier|value\n\n"
)


def test_it_rebuilds_the_text_as_inception_does(data: Path) -> None:
    assert detect_format(data / "webanno.tsv") == "webanno"

    (document,) = read_documents(data / "webanno.tsv")

    assert document.external_id == "webanno"
    # Two #Text lines make one sentence with a line break; each sentence ends with "\n".
    assert document.text == (
        "🎉 Moshe Chaya met Tom Reddle's son in Paris.\n"
        "He lives at\nRue Alphonse Metayer.\n"
        f"قابلت Ahmed في Orl{ACUTE}ans.\n"
    )


def test_it_converts_utf16_offsets_and_joins_multi_token_and_stacked_spans(data: Path) -> None:
    (document,) = read_documents(data / "webanno.tsv")

    assert surfaces(document) == [
        ("PER", "Moshe Chaya"),  # PER[1] over two tokens, after an emoji
        ("PER", "Tom Reddle"),  # PER[2]: a token and a sub-token
        ("LOC", "Paris"),  # LOC[3]|ORG[4] stacked
        ("ORG", "Paris"),
        ("ADDRESS", "Rue Alphonse Metayer"),  # across the sentence's own line break
        ("PER", "Ahmed"),
        ("LOC", f"Orl{ACUTE}ans"),
    ]


def test_gaps_between_sentences_are_filled_with_a_line_break_then_spaces(tmp_path: Path) -> None:
    path = tmp_path / "gap.tsv"
    path.write_text(
        HEADER + "\n#Text=Hi Tom\n1-1\t0-2\tHi\t_\t_\t\n1-2\t3-6\tTom\t*\tPER\t\n"
        "\n#Text=Bye\n2-1\t10-13\tBye\t_\t_\t\n",
        encoding="utf-8",
    )

    (document,) = read_documents(path)

    assert document.text == "Hi Tom\n   Bye\n"
    assert surfaces(document) == [("PER", "Tom")]


def test_it_refuses_a_token_that_does_not_match_its_offsets(tmp_path: Path) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(
        HEADER + "\n#Text=🎉 Moshe\n1-1\t0-2\t🎉\t_\t_\t\n1-2\t2-7\tMoshe\t*\tPER\t\n",
        encoding="utf-8",
    )

    with pytest.raises(FormatError) as error:
        list(read_documents(path))

    assert (error.value.filename, error.value.line) == ("bad.tsv", 7)
    assert error.value.reason.startswith("token 'Moshe' does not match the text at 2-7")


def test_it_unescapes_values_and_text_as_tsv_3_3_escapes_them() -> None:
    assert unescape_value(r"ORG\_NAME\[x\]\|y") == "ORG_NAME[x]|y"
    assert unescape_text(r"a\\b\tc\rd", 3) == "a\\b\tc\rd"
