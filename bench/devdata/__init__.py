"""Rebuilding the development sets of `bench/detection_quality.py` from public snapshots.

The sets themselves stay outside the repository (`$CLOAK_DEVDATA`, by default the folder
`devdata` beside it); what is kept here is how to make them again. Each converter reads one
source from a fetched git snapshot (a bare git directory, read with `git show COMMIT:PATH`,
never the network) and returns `Document`s and a `Provenance`; `write_set` checks every span
(`text[start:end] == span.text`), splits the documents into the two halves by a hash of their
id and writes `dev.jsonl`, `heldout.jsonl` and `PROVENANCE.md`.

`bench/devdata/README.md` lists the sets and how to rebuild them; `build.py` is the command.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pseudonymizer.evaluation import tokenize  # noqa: E402
from pseudonymizer.labels import CANONICAL_LABELS  # noqa: E402

HALVES = ("dev", "heldout")
LANGUAGES = frozenset({"en", "fr", "ar"})
DOMAINS = frozenset({"clinical", "social", "news", "legal"})


class WithheldError(RuntimeError):
    """A converter asked for a file that is held out (a test split): it must never be read."""


@dataclass(frozen=True, order=True)
class Span:
    """A gold span: code-point offsets into its document's text and a Cloak label."""

    start: int
    end: int
    label: str

    def record(self, text: str) -> dict[str, object]:
        return {
            "start": self.start,
            "end": self.end,
            "label": self.label,
            "text": text[self.start : self.end],
        }


@dataclass
class Document:
    """One line of a set's JSONL file."""

    id: str
    lang: str
    domain: str
    text: str
    spans: list[Span]
    # Per-annotator spans (TAB); `spans` is then their union.
    annotators: dict[str, list[Span]] | None = None

    def check(self) -> None:
        """Raise AssertionError unless the document is well formed."""
        assert self.id, "a document needs an id"
        assert self.lang in LANGUAGES, f"{self.id}: language {self.lang!r}"
        assert self.domain in DOMAINS, f"{self.id}: domain {self.domain!r}"
        groups = [self.spans, *(self.annotators or {}).values()]
        for span in (span for group in groups for span in group):
            assert 0 <= span.start < span.end <= len(self.text), f"{self.id}: {span}"
            assert span.label in CANONICAL_LABELS, f"{self.id}: label {span.label!r}"
            surface = self.text[span.start : span.end]
            assert surface == surface.strip(), f"{self.id}: {surface!r} has outer spaces"

    def record(self) -> dict[str, object]:
        record: dict[str, object] = {
            "id": self.id,
            "lang": self.lang,
            "domain": self.domain,
            "text": self.text,
            "spans": [span.record(self.text) for span in sorted(self.spans)],
        }
        if self.annotators is not None:
            record["annotators"] = {
                name: [{"start": s.start, "end": s.end, "label": s.label} for s in sorted(spans)]
                for name, spans in sorted(self.annotators.items())
            }
        return record


@dataclass(frozen=True)
class Licence:
    """A source's licence, and the phrase of the file that states it (checked on every build,
    so a snapshot whose licence changed fails instead of being mislabelled)."""

    name: str
    path: str | None = None
    phrase: str | None = None

    def describe(self) -> str:
        if self.path is None:
            return self.name
        return f"{self.name} (`{self.path}`: “{self.phrase}”)"


NO_LICENCE = Licence("none stated in the snapshot (no LICENSE file; the README names none)")


@dataclass
class Provenance:
    """What `PROVENANCE.md` says about a set."""

    source: str  # "github:owner/name", or where in this repository
    commit: str
    commit_date: str
    paths: list[str]
    licence: Licence
    description: str  # what the source is
    conversion: list[str]  # how it was converted, one paragraph each
    labels: Mapping[str, str | None]  # the source's label → Cloak's label (None: dropped)
    withheld: Sequence[str] = ()  # files of the source that were never read
    notes: list[str] = field(default_factory=list)  # oddities met while converting


class Snapshot:
    """A fetched repository: a bare git directory, read at one commit without a work tree."""

    def __init__(
        self, git_dir: Path, repo: str, withheld: Sequence[str] = (), source: str = ""
    ) -> None:
        self.git_dir = git_dir
        self.repo = repo
        self.source = source or f"github:{repo}"
        # Glob patterns (fnmatch) of files that must never be read: test splits.
        self.withheld = tuple(withheld)
        self.read: list[str] = []

    @classmethod
    def find(cls, root: Path, repo: str, withheld: Sequence[str] = ()) -> Snapshot:
        """The snapshot of `repo` ("owner/name") that the fetch tool left under `root`:
        `root/owner+name/repo`, a bare directory or one holding `.git`."""
        base = root / repo.replace("/", "+") / "repo"
        for candidate in (base, base / ".git"):
            if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
                return cls(candidate, repo, withheld)
        raise FileNotFoundError(f"no snapshot of {repo} under {root} (fetch github:{repo})")

    @classmethod
    def this_repository(cls, withheld: Sequence[str] = ()) -> Snapshot:
        """Cloak's own repository, read at its HEAD commit (committed files only)."""
        return cls(ROOT / ".git", "Cloak", withheld, source="this repository (Cloak)")

    def _git(self, *args: str) -> bytes:
        return subprocess.run(
            ["git", f"--git-dir={self.git_dir}", *args], check=True, capture_output=True
        ).stdout

    @cached_property
    def commit(self) -> str:
        return self._git("rev-parse", "HEAD").decode().strip()

    @cached_property
    def commit_date(self) -> str:
        return self._git("log", "-1", "--format=%cI", self.commit).decode().strip()

    def files(self, folder: str = "") -> list[str]:
        """The paths of the files under `folder` (every file when empty), sorted."""
        args = ["ls-tree", "-r", "--name-only", self.commit]
        if folder:
            args += ["--", folder]
        return sorted(self._git(*args).decode().splitlines())

    def read_text(self, path: str) -> str:
        """The file at `path`, decoded as UTF-8; WithheldError for a held-out file."""
        if any(fnmatch.fnmatch(path, pattern) for pattern in self.withheld):
            raise WithheldError(f"{self.repo}: {path} is held out and must not be read")
        self.read.append(path)
        return self._git("show", f"{self.commit}:{path}").decode("utf-8")

    def check_licence(self, licence: Licence) -> Licence:
        """`licence`, once its phrase is found in its file (AssertionError otherwise)."""
        if licence.path is not None:
            text = self.read_text(licence.path)
            assert licence.phrase and licence.phrase in text, f"{self.repo}: {licence}"
        return licence

    def provenance(
        self,
        *,
        licence: Licence,
        description: str,
        conversion: list[str],
        labels: Mapping[str, str | None],
        notes: list[str] | None = None,
    ) -> Provenance:
        """A Provenance with this snapshot's source, commit and the paths read so far (the
        licence's phrase is checked first, so its file is among them)."""
        self.check_licence(licence)
        return Provenance(
            source=self.source,
            commit=self.commit,
            commit_date=self.commit_date,
            paths=list(dict.fromkeys(self.read)),
            licence=licence,
            description=description,
            conversion=conversion,
            labels=labels,
            withheld=self.withheld,
            notes=notes or [],
        )


@dataclass(frozen=True)
class SetSpec:
    """A development set and how to convert it."""

    name: str
    repo: str  # "owner/name" of the fetched snapshot; "" for this repository
    convert: Callable[[Snapshot], tuple[list[Document], Provenance]]
    # Glob patterns of the source's files that are held out: reading one raises.
    withheld: tuple[str, ...] = ()

    def snapshot(self, root: Path) -> Snapshot:
        if not self.repo:
            return Snapshot.this_repository(self.withheld)
        return Snapshot.find(root, self.repo, self.withheld)


def half(document_id: str) -> str:
    """The half a document belongs to: the parity of the SHA-1 of its id (even: dev)."""
    return HALVES[int(hashlib.sha1(document_id.encode("utf-8")).hexdigest(), 16) % 2]


def find_all(text: str, value: str) -> list[int]:
    """The starts of the occurrences of `value` in `text` that are whole words: neither end
    is glued to a letter or digit of the text around it (no "Al" inside "Also")."""
    starts = []
    index = text.find(value)
    while index >= 0 and value:
        end = index + len(value)
        before = text[index - 1] if index else " "
        after = text[end] if end < len(text) else " "
        glued = (value[0].isalnum() and before.isalnum()) or (
            value[-1].isalnum() and after.isalnum()
        )
        if not glued:
            starts.append(index)
        index = text.find(value, index + 1)
    return starts


@dataclass
class _Tally:
    documents: int = 0
    tokens: int = 0
    gold_tokens: int = 0
    spans: Counter[str] = field(default_factory=Counter)

    def add(self, document: Document) -> None:
        tokens = tokenize(document.text)
        self.documents += 1
        self.tokens += len(tokens)
        self.gold_tokens += sum(
            any(s.start < end and start < s.end for s in document.spans) for start, end in tokens
        )
        self.spans.update(span.label for span in document.spans)


def write_set(
    out: Path, name: str, documents: Sequence[Document], provenance: Provenance
) -> dict[str, _Tally]:
    """Check `documents`, split them and write the set `name` under `out`; the counts per
    half. Nothing is written unless every document passes its checks."""
    ids = Counter(document.id for document in documents)
    duplicates = [doc_id for doc_id, count in ids.items() if count > 1]
    assert not duplicates, f"{name}: duplicate ids {duplicates[:5]}"
    for document in documents:
        document.check()
    halves: dict[str, list[Document]] = {h: [] for h in HALVES}
    for document in documents:
        halves[half(document.id)].append(document)
    tallies = {h: _Tally() for h in HALVES}
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    for which, members in halves.items():
        with (folder / f"{which}.jsonl").open("w", encoding="utf-8") as lines:
            for document in members:
                tallies[which].add(document)
                lines.write(json.dumps(document.record(), ensure_ascii=False) + "\n")
    (folder / "PROVENANCE.md").write_text(
        _provenance_text(name, provenance, tallies), encoding="utf-8"
    )
    return tallies


def _provenance_text(name: str, provenance: Provenance, tallies: Mapping[str, _Tally]) -> str:
    labels = sorted({label for tally in tallies.values() for label in tally.spans})
    rows = [
        "| half | documents | tokens | gold tokens | spans | " + " | ".join(labels) + " |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(labels),
    ]
    for which, tally in tallies.items():
        cells = [
            f"{tally.documents:,}",
            f"{tally.tokens:,}",
            f"{tally.gold_tokens:,}",
            f"{sum(tally.spans.values()):,}",
            *(f"{tally.spans[label]:,}" for label in labels),
        ]
        rows.append(f"| {which} | " + " | ".join(cells) + " |")
    mapping = [
        f"- `{source}` → {target if target else 'dropped'}"
        for source, target in provenance.labels.items()
    ]
    parts = [
        f"# {name}",
        provenance.description,
        "## Source",
        "\n".join(
            [
                f"- repository: {provenance.source}",
                f"- commit: `{provenance.commit}` ({provenance.commit_date})",
                f"- licence: {provenance.licence.describe()}",
                "- files read: " + ", ".join(f"`{path}`" for path in provenance.paths),
                *(
                    ["- held out, never read: " + ", ".join(f"`{w}`" for w in provenance.withheld)]
                    if provenance.withheld
                    else []
                ),
            ]
        ),
        "## Conversion",
        *provenance.conversion,
        "Labels (source → Cloak):\n\n" + "\n".join(mapping),
        "Halves: a document is in `dev` when the SHA-1 of its id (UTF-8), read as an integer, "
        "is even, else in `heldout`. Offsets are code points; every span was checked: "
        "`text[start:end] == span.text`. Rebuild with `bench/devdata/build.py` "
        "(see `bench/devdata/README.md`).",
    ]
    if provenance.notes:
        parts += ["## Notes", "\n".join(f"- {note}" for note in provenance.notes)]
    parts += [
        "## Counts",
        "Tokens are `pseudonymizer.evaluation.tokenize`'s (what the bench counts); gold tokens "
        "are those inside some span.\n\n" + "\n".join(rows),
    ]
    return "\n\n".join(parts) + "\n"


def merge_spans(groups: Iterable[Iterable[Span]]) -> list[Span]:
    """The union of several annotators' spans: one span per (start, end), with the label
    most of them gave it (ties: the first in label order)."""
    votes: dict[tuple[int, int], Counter[str]] = {}
    for group in groups:
        for span in group:
            votes.setdefault((span.start, span.end), Counter())[span.label] += 1
    return sorted(
        Span(start, end, min(count, key=lambda label: (-count[label], label)))
        for (start, end), count in votes.items()
    )
