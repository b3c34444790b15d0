"""A zip of documents: `.txt` files (one document each, or BRAT pairs with `.ann` files) and
files in the line-based formats (.jsonl/.ndjson, .csv, .conll/.bio/.iob).

Read member by member, never unpacked to disk. Zip bombs are refused before anything is
decompressed (declared sizes over the limit, or a compression ratio no text reaches), and the
bytes really decompressed are counted as they come, since declared sizes can lie.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import IO, TYPE_CHECKING, BinaryIO

from pseudonymizer.formats import brat, conll, doccano, inline, jsonl, tabular, txt
from pseudonymizer.formats._common import Context, read_text
from pseudonymizer.formats.base import FormatError, ImportedDocument
from pseudonymizer.formats.detect import SNIFF_BYTES, jsonl_flavour

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

Reader = Callable[[BinaryIO, Context], Iterator[ImportedDocument]]
LINE_READERS: dict[str, Reader] = {
    ".csv": tabular.read,
    ".conll": conll.read,
    ".bio": conll.read,
    ".iob": conll.read,
}
JSONL_READERS: dict[str, Reader] = {"jsonl": jsonl.read, "doccano": doccano.read}
SUPPORTED = (".txt", ".ann", ".jsonl", ".ndjson", *LINE_READERS)
# BRAT's configuration files travel with its data; they hold no documents.
IGNORED_SUFFIXES = (".conf",)
# A member smaller than this is never called a bomb, whatever its ratio (a page of spaces).
RATIO_FLOOR = 1 << 20
_BROKEN = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError)


class _Budget:
    """Bytes the archive may still expand to; spent as members are decompressed."""

    def __init__(self, limit: int, name: str) -> None:
        self.left = limit
        self.limit = limit
        self.name = name

    def spend(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise FormatError(
                self.name,
                0,
                f"the archive expands past the limit of {self.limit} bytes: looks like a zip bomb",
            )


class _Counted(io.RawIOBase):
    """A member's stream that charges every byte it gives to the budget."""

    def __init__(self, inner: IO[bytes], budget: _Budget) -> None:
        self._inner = inner
        self._budget = budget

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        with memoryview(buffer) as view, view.cast("B") as target:
            data = self._inner.read(target.nbytes)
            self._budget.spend(len(data))
            target[: len(data)] = data
        return len(data)


def _skipped(info: zipfile.ZipInfo) -> bool:
    parts = PurePosixPath(info.filename).parts
    return (
        info.is_dir()
        or not parts
        or parts[0] == "__MACOSX"
        or any(part.startswith(".") for part in parts)
        or info.filename.lower().endswith(IGNORED_SUFFIXES)
    )


def _stem(member: str) -> str:
    return str(PurePosixPath(member).with_suffix(""))


def _check_sizes(members: list[zipfile.ZipInfo], ctx: Context) -> None:
    limits = ctx.limits
    declared = sum(info.file_size for info in members)
    if declared > limits.max_bytes:
        raise ctx.error(
            0, f"the archive expands to {declared} bytes, over the limit of {limits.max_bytes}"
        )
    compressed = sum(info.compress_size for info in members)
    for info in members:
        where = f"{ctx.name}/{info.filename}"
        if info.flag_bits & 0x1:
            raise FormatError(where, 0, "the member is encrypted")
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > RATIO_FLOOR and ratio > limits.max_zip_ratio:
            raise FormatError(
                where,
                0,
                f"compressed {ratio:.0f} to 1, over the limit of {limits.max_zip_ratio}: "
                "looks like a zip bomb",
            )
    if declared > RATIO_FLOOR and declared / max(compressed, 1) > limits.max_zip_ratio:
        raise ctx.error(
            0,
            f"compressed {declared / max(compressed, 1):.0f} to 1, over the limit of "
            f"{limits.max_zip_ratio}: looks like a zip bomb",
        )


def read(path: Path | IO[bytes], ctx: Context) -> Iterator[ImportedDocument]:
    """Read the documents of a zip archive (a path or an open file), member by member."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as error:
        raise ctx.error(0, f"not a readable zip archive: {error}") from None
    with archive:
        members = [info for info in archive.infolist() if not _skipped(info)]
        for info in members:
            if not info.filename.lower().endswith(SUPPORTED):
                raise FormatError(
                    f"{ctx.name}/{info.filename}",
                    0,
                    f"cannot read this kind of file in a zip; the archive may hold "
                    f"{', '.join(SUPPORTED)} files",
                )
        _check_sizes(members, ctx)
        texts = {_stem(i.filename) for i in members if i.filename.lower().endswith(".txt")}
        annotations: dict[str, zipfile.ZipInfo] = {}
        for info in members:
            if info.filename.lower().endswith(".ann"):
                if _stem(info.filename) not in texts:
                    raise FormatError(
                        f"{ctx.name}/{info.filename}", 0, "no .txt file beside this .ann file"
                    )
                annotations[_stem(info.filename)] = info
        budget = _Budget(ctx.limits.max_bytes, ctx.name)

        def open_member(info: zipfile.ZipInfo) -> BinaryIO:
            return io.BufferedReader(_Counted(archive.open(info), budget), SNIFF_BYTES)

        for info in members:
            name = info.filename
            suffix = PurePosixPath(name).suffix.lower()
            if suffix == ".ann":
                continue
            member_ctx = ctx.member(f"{ctx.name}/{name}", _stem(name))
            try:
                if suffix == ".txt":
                    yield _text_member(archive, info, annotations, member_ctx, ctx, open_member)
                    continue
                if suffix in (".jsonl", ".ndjson"):
                    with archive.open(info) as peek:  # not charged: at most the first record
                        reader = JSONL_READERS[jsonl_flavour(peek.read(SNIFF_BYTES), peek)]
                else:
                    reader = LINE_READERS[suffix]
                with open_member(info) as stream:
                    yield from reader(stream, member_ctx)
            except _BROKEN as error:
                raise FormatError(member_ctx.name, 0, f"cannot read this member: {error}") from None


def _text_member(
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    annotations: dict[str, zipfile.ZipInfo],
    member_ctx: Context,
    ctx: Context,
    open_member: Callable[[zipfile.ZipInfo], BinaryIO],
) -> ImportedDocument:
    stem = _stem(info.filename)
    ann = annotations.get(stem)
    with open_member(info) as stream:
        if ann is not None:
            ann_ctx = ctx.member(f"{ctx.name}/{ann.filename}", stem)
            with open_member(ann) as ann_stream:
                return brat.read_pair(stream, member_ctx, ann_stream, ann_ctx)
        text = read_text(stream, member_ctx.name)
    if annotations:  # a BRAT zip: a .txt without its .ann has no annotations yet
        return txt.parse(text, member_ctx)
    return (inline if inline.looks_inline(text) else txt).parse(text, member_ctx)
