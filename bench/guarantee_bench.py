"""The guarantee, measured: identifiers planted in many written forms, a team that accepts
what is proposed and fixes what a release refuses, and what gets published all the same.

A generated corpus of English, French and Arabic posts names people (and their e-mail
addresses, handles, links, hashtags and phone numbers) in the forms a hostile tester used
against Cloak (issue 29): full names, surnames alone, possessives, capitals, line breaks,
no-break spaces, fullwidth and mathematical letters, accents added and letters that do not
decompose (ø, æ), zero-width characters and soft hyphens inside, Greek and Cyrillic
look-alike letters, Latin names inside Arabic posts, Arabic proclitics, tatweel, harakat,
hamza and alef forms, Arabic-Indic digits… (`FORMS`).

The team, through Cloak's own services, as people do it on the pages:

1. Imports the corpus and pre-annotates it (patterns, lexicons, known entities; NER too with
   `--ner`), in this process.
2. Decides each person once: adds their full name, as the tester did, in one post that
   writes it plainly; the table proposes it everywhere else (propagation).
3. Accepts every proposal of every post (the page's "accept all", then one by one what it
   left: a confirmation for less than a word; a proposal that cannot be accepted is
   rejected), and marks each post done.
4. Cuts a release (S2, JSONL, the whole detection check). While it is refused, a person adds
   a span over every stretch nobody decided on that it names, marks the post done again, and
   cuts again (`--rounds` at most).

Then it reads the published file. A planted identifier is *published* when what was planted
is still in its post's released text (as written, or any word of its person's name, folded
as Cloak folds). The report counts, per form: planted, refused (a release named its stretch),
published, and why (the post was released with the identifier in clear: nobody and nothing
saw it; or a person rejected it).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cloak_guarantee \\
        python bench/guarantee_bench.py -n 1500 [--ner] [--seed 29] [--rounds 6] [--json F]

The database named in DATABASE_URL is dropped and created again first: point it at a
database of its own. No model is learned from the team's decisions on the way
(CLOAK_LEARN_EVERY=0 unless set). `tests/test_guarantee_bench.py` runs a small corpus of it
in CI.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import tempfile
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# --- The people --------------------------------------------------------------------------------

# (first name, surname): rare enough that no word of theirs is a word of the templates.
LATIN_PEOPLE = [
    ("Evander", "Thistlewood"), ("Ottoline", "Postlethwaite"), ("Søren", "Kjærgaard"),
    ("Haytham", "Tarabishi"), ("Marguerite", "Vennardot"), ("Bartholomew", "Quillfeather"),
    ("Leocadie", "Brasseurvin"), ("Thaddeus", "Pennycuick"), ("Wilhelmina", "Ashcombe"),
    ("Ignatius", "Fairweather"), ("Rosalind", "Underhay"), ("Cosimo", "Verlaquet"),
    ("Philippa", "Dunstreve"), ("Anselme", "Roquebrunel"), ("Gwendoline", "Harrowgate"),
    ("Lysander", "Mortlake"), ("Clémentine", "Aubervaux"), ("Peregrine", "Whitlock"),
    ("Æthelric", "Stowmarsh"), ("Honorine", "Kervadec"), ("Tobiah", "Wrenfield"),
    ("Octavie", "Lagrandière"), ("Jasper", "Bellingham"), ("Fenella", "Crookshank"),
]  # fmt: skip
ARABIC_PEOPLE = [
    ("فاطمة", "مصطفى"), ("هيثم", "طرابيشي"), ("سعاد", "الحلبي"), ("أيمن", "سليمان"),
    ("نورة", "القحطاني"), ("إبراهيم", "الزعبي"), ("رانية", "الخطيب"), ("مؤمن", "العتيبي"),
    ("لمى", "الشهري"), ("أسامة", "الدوسري"), ("ريم", "النعيمي"), ("ياسر", "البرغوثي"),
]  # fmt: skip

# Greek and Cyrillic letters that pass for Latin ones.
_LOOK_ALIKES = {
    "greek": {"A": "Α", "B": "Β", "E": "Ε", "H": "Η", "I": "Ι", "K": "Κ", "M": "Μ", "N": "Ν",
              "O": "Ο", "P": "Ρ", "T": "Τ", "X": "Χ", "Z": "Ζ", "o": "ο"},
    "cyrillic": {"a": "а", "c": "с", "e": "е", "o": "о", "p": "р", "x": "х", "y": "у",
                 "A": "А", "B": "В", "C": "С", "E": "Е", "H": "Н", "K": "К", "M": "М",
                 "O": "О", "P": "Р", "T": "Т"},
}  # fmt: skip
_HARAKAT = "\u064e\u064f\u0650"
_ARABIC_DIGITS = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
_UNACCENTED = str.maketrans({"ø": "o", "Ø": "O", "æ": "ae", "Æ": "Ae", "é": "e", "è": "e"})


def _ascii_handle(first: str, last: str) -> str:
    plain = unicodedata.normalize("NFKD", (first + last).translate(_UNACCENTED))
    return "".join(char for char in plain if char.isascii() and char.isalnum()).lower()


@dataclass(frozen=True)
class Person:
    key: int
    first: str
    last: str
    arabic: bool

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def handle(self) -> str:
        return _ascii_handle(self.first, self.last) if not self.arabic else f"user{self.key}"

    @property
    def phone(self) -> str:
        return f"+44 7700 9{self.key:05d}"

    @property
    def words(self) -> list[str]:
        return [self.first, self.last]


def _look_alike(word: str, script: str) -> str:
    table = _LOOK_ALIKES[script]
    for index, char in enumerate(word):
        if char in table:
            return word[:index] + table[char] + word[index + 1 :]
    return word


def _inside(word: str, joiner: str) -> str:
    middle = max(1, len(word) // 2)
    return word[:middle] + joiner + word[middle:]


def _fullwidth(text: str) -> str:
    """ASCII as fullwidth forms, a space as the ideographic one; other letters as they are."""
    return "".join(
        chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" if c == " " else c for c in text
    )


def _math_bold(text: str) -> str:
    """ASCII letters as mathematical bold ones (𝐌𝐨𝐬𝐡𝐞), by their Unicode names."""
    return "".join(
        unicodedata.lookup(f"MATHEMATICAL BOLD {'CAPITAL' if c.isupper() else 'SMALL'} {c}")
        if c.isascii() and c.isalpha()
        else c
        for c in text
    )


# A form: what is planted for a person (None: the form does not apply to them), and the
# languages of the posts it is planted in. The name forms are those a person's decision is
# meant to reach; the contact forms are identifiers of their own, decided as proposed.
Form = Callable[[Person], str | None]

LATIN_FORMS: dict[str, Form] = {
    "full": lambda p: p.full,
    "surname": lambda p: p.last,
    "first-name": lambda p: p.first,
    "possessive": lambda p: f"{p.full}'s",
    "typographic-possessive": lambda p: f"{p.last}\u2019s",
    "capitals": lambda p: p.full.upper(),
    "lower-case": lambda p: p.full.lower(),
    "line-break": lambda p: f"{p.first}\n{p.last}",
    "no-break-space": lambda p: f"{p.first}\u00a0{p.last}",
    "two-spaces": lambda p: f"{p.first}  {p.last}",
    "fullwidth": lambda p: _fullwidth(p.full),
    "mathematical-bold": lambda p: _math_bold(p.full.translate(_UNACCENTED)),
    "accents-dropped": lambda p: (
        p.full.translate(_UNACCENTED) if p.full.translate(_UNACCENTED) != p.full else None
    ),
    "accent-added": lambda p: f"{p.first} {p.last[:1]}\u0301{p.last[1:]}",
    "zero-width-space": lambda p: f"{_inside(p.first, chr(0x200B))} {p.last}",
    "zero-width-joiner": lambda p: f"{p.first} {_inside(p.last, chr(0x200D))}",
    "soft-hyphen": lambda p: f"{p.first} {_inside(p.last, chr(0xAD))}",
    "greek-look-alike": lambda p: f"{_look_alike(p.first, 'greek')} {p.last}",
    "cyrillic-look-alike": lambda p: f"{p.first} {_look_alike(p.last, 'cyrillic')}",
    "title": lambda p: f"Dr {p.full}",
    "initial": lambda p: f"{p.first[0]}. {p.last}",
    "hyphenated": lambda p: f"{p.last}-Morel",
    "email": lambda p: f"{p.handle}@example.org",
    "handle": lambda p: f"@{p.handle}",
    "url": lambda p: f"https://example.org/u/{p.handle}",
    "hashtag": lambda p: f"#{p.handle}",
    "phone": lambda p: p.phone,
}
ARABIC_FORMS: dict[str, Form] = {
    "ar-full": lambda p: p.full,
    "ar-surname": lambda p: p.last,
    "ar-proclitic": lambda p: f"و{p.full}",
    "ar-tatweel": lambda p: f"{_inside(p.first, chr(0x640))} {p.last}",
    "ar-harakat": lambda p: f"{p.first[0]}{_HARAKAT[p.key % 3]}{p.first[1:]} {p.last}",
    "ar-hamza": lambda p: (
        p.full.replace("أ", "ا").replace("إ", "ا").replace("ؤ", "و")
        if any(c in p.full for c in "أإؤ")
        else None
    ),
    "ar-ta-marbuta": lambda p: p.full.replace("ة", "ه") if "ة" in p.full else None,
    "ar-alef-maqsura": lambda p: p.full.replace("ى", "ي") if "ى" in p.full else None,
    "ar-zero-width": lambda p: f"{_inside(p.first, chr(0x200C))} {p.last}",
    "ar-phone-arabic-indic": lambda p: p.phone.translate(_ARABIC_DIGITS),
    "ar-handle": lambda p: f"@{p.handle}",
}
# Latin people inside Arabic posts.
LATIN_IN_ARABIC: dict[str, Form] = {"latin-in-arabic": lambda p: p.full}
FORMS = sorted({*LATIN_FORMS, *ARABIC_FORMS, *LATIN_IN_ARABIC})

SENTENCES = {
    "en": ["Yesterday {x} posted again about the meeting.", "We spoke with {x} on Tuesday.",
           "The photos were shared by {x} last night.", "Please forward this to {x} today."],
    "fr": ["Hier, {x} a publié un nouveau message.", "Nous avons parlé avec {x} mardi.",
           "Les photos ont été partagées par {x} hier soir.", "Merci de transmettre à {x}."],
    "ar": ["كتب {x} منشورا جديدا أمس.", "تحدثنا مع {x} يوم الثلاثاء.",
           "نشر {x} الصور الليلة الماضية.", "أرسلوا هذا إلى {x} اليوم."],
}  # fmt: skip
PLAIN = {"en": "Nothing else to report.", "fr": "Rien d'autre à signaler.", "ar": "لا جديد."}


@dataclass(frozen=True)
class Planted:
    document: str  # external id
    start: int
    end: int
    form: str
    person: int
    surface: str


@dataclass
class Corpus:
    records: list[dict[str, Any]] = field(default_factory=list)
    planted: list[Planted] = field(default_factory=list)
    people: dict[int, Person] = field(default_factory=dict)
    # The post where each person is written plainly, in full: where the team decides them.
    seeds: dict[int, str] = field(default_factory=dict)


def generate(documents: int, seed: int = 29) -> Corpus:
    """`documents` posts (a third in each language, at least one per person to seed), each
    naming two or three people in random forms."""
    rng = random.Random(seed)
    corpus = Corpus()
    latin = [Person(n, first, last, False) for n, (first, last) in enumerate(LATIN_PEOPLE)]
    arabic = [Person(100 + n, first, last, True) for n, (first, last) in enumerate(ARABIC_PEOPLE)]
    corpus.people = {person.key: person for person in [*latin, *arabic]}

    def post(external_id: str, language: str, plants: list[tuple[str, Person, str]]) -> None:
        text, found = "", []
        for form, person, surface in plants:
            sentence = rng.choice(SENTENCES[language])
            before, after = sentence.split("{x}")
            text += ("" if not text else " ") + before
            found.append(Planted(external_id, len(text), len(text) + len(surface), form,
                                 person.key, surface))  # fmt: skip
            text += surface + after
        text += " " + PLAIN[language]
        corpus.records.append({"id": external_id, "lang": language, "text": text})
        corpus.planted.extend(found)

    number = 0
    for person in latin:  # the seeds: each person written plainly, in full, once
        language = rng.choice(["en", "fr"])
        corpus.seeds[person.key] = f"seed-{person.key}"
        post(corpus.seeds[person.key], language, [("full", person, person.full)])
        number += 1
    for person in arabic:
        corpus.seeds[person.key] = f"seed-{person.key}"
        post(corpus.seeds[person.key], "ar", [("ar-full", person, person.full)])
        number += 1
    languages = ["en", "fr", "ar"]
    while number < documents:
        language = languages[number % 3]
        plants = []
        for _ in range(rng.randint(2, 3)):
            if language == "ar" and rng.random() < 0.2:
                person, forms = rng.choice(latin), LATIN_IN_ARABIC
            elif language == "ar":
                person, forms = rng.choice(arabic), ARABIC_FORMS
            else:
                person, forms = rng.choice(latin), LATIN_FORMS
            name = rng.choice(sorted(forms))
            surface = forms[name](person)
            if surface is not None:
                plants.append((name, person, surface))
        if plants:
            post(f"post-{number}", language, plants)
        number += 1
    return corpus


# --- The team ----------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What the bench saw: per form, how many were planted, refused, published; why."""

    planted: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    published: Counter[str] = field(default_factory=Counter)
    why: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    rounds: int = 0
    release_status: str = ""
    left_out: int = 0
    left_out_why: Counter[str] = field(default_factory=Counter)
    spans_added_on_refusal: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "release": self.release_status,
            "left_out": self.left_out,
            "left_out_why": dict(self.left_out_why),
            "spans_added_on_refusal": self.spans_added_on_refusal,
            "seconds": {key: round(value, 1) for key, value in self.seconds.items()},
            "forms": {
                form: {
                    "planted": self.planted[form],
                    "refused": self.refused[form],
                    "published": self.published[form],
                    "why": dict(self.why[form]),
                }
                for form in sorted(self.planted)
            },
        }


PASSWORD = "planted forms, decided once, never published"


def run_team(corpus: Corpus, *, use_ner: bool = False, rounds: int = 6, slug: str = "guarantee",
             out: Callable[[str], None] = print) -> Outcome:  # fmt: skip
    """Import `corpus` into a new project and work it as the module says; what was published."""
    from annotator.models import Document, DocumentStatus, Role
    from annotator.services.imports import documents_import
    from annotator.services.projects import membership_set, project_create
    from annotator.services.runs import run_create, run_execute

    outcome = Outcome()
    clock = time.perf_counter()
    project = project_create(slug=slug, languages=["en", "fr", "ar"], schema="cloaked")
    person = membership_set(
        project=project, username=f"{slug}-annotator", role=Role.ANNOTATOR,
        languages=["en", "fr", "ar"], password=PASSWORD,
    ).user  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "corpus.jsonl"
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus.records),
            encoding="utf-8",
        )
        documents_import(project=project, path=path, fmt="jsonl", actor=person)
    ids = dict(Document.objects.filter(project=project).values_list("external_id", "pk"))
    outcome.seconds["import"] = time.perf_counter() - clock

    clock = time.perf_counter()
    run = run_create(project=project, actor=person, use_ner=use_ner, dispatch=False)
    run_execute(run=run)
    outcome.seconds["pre-annotation"] = time.perf_counter() - clock
    out(f"imported {len(ids)} posts, pre-annotated ({outcome.seconds['pre-annotation']:.1f} s)")

    clock = time.perf_counter()
    _decide_people(corpus, project, ids, person)
    _finish_all(project, person)
    outcome.seconds["annotation"] = time.perf_counter() - clock
    out(f"decided and accepted ({outcome.seconds['annotation']:.1f} s)")

    clock = time.perf_counter()
    release, refused_at = _release_until_done(project, person, rounds, outcome, out)
    outcome.seconds["releases"] = time.perf_counter() - clock
    outcome.release_status = release.status
    published = _published(release)
    rejected = _rejected_stretches(project)
    for plant in corpus.planted:
        outcome.planted[plant.form] += 1
        document_id = ids[plant.document]
        if any(_overlaps(plant, stretch) for stretch in refused_at.get(document_id, ())):
            outcome.refused[plant.form] += 1
        text = published.get(plant.document)
        if text is None:
            continue
        if _in_clear(plant, corpus.people[plant.person], text):
            outcome.published[plant.form] += 1
            rejected_here = any(_overlaps(plant, s) for s in rejected.get(document_id, ()))
            outcome.why[plant.form][
                "a person rejected it" if rejected_here else "nothing read it"
            ] += 1
    outcome.left_out = sum(1 for external_id in ids if external_id not in published)
    for entry in (release.manifest or {}).get("documents", {}).get("left_out", []):
        # The reason's first words: "3 proposal(s) undecided" counts with the others.
        outcome.left_out_why[" ".join(str(entry.get("reason", "")).split()[1:4])] += 1
    finished = Document.objects.filter(project=project, status=DocumentStatus.DONE).count()
    out(f"{finished} posts done; release {release.version} {release.status}")
    return outcome


def _decide_people(corpus: Corpus, project: Any, ids: dict[str, int], person: Any) -> None:
    """Each person once: their full name in their seed post, as a person adds it."""
    from annotator.errors import DomainError
    from annotator.models import Document, Span, SpanStatus
    from annotator.services.spans import SpanChange, span_create, span_update

    for plant in corpus.planted:
        if corpus.seeds.get(plant.person) != plant.document:
            continue
        document = Document.objects.get(pk=ids[plant.document])
        same = Span.objects.filter(document=document, start=plant.start, end=plant.end,
                                   status=SpanStatus.PROPOSED).first()  # fmt: skip
        try:
            if same is not None:
                change = SpanChange(status="accepted", label="PER", confirm=True)
                span_update(document=document, span_id=same.pk, actor=person,
                            version=same.version, change=change)  # fmt: skip
            else:
                span_create(document=document, actor=person, start=plant.start, end=plant.end,
                            label="PER", confirm=True)  # fmt: skip
        except DomainError:
            continue  # decided otherwise already: the post's proposals say how


def _finish_all(project: Any, person: Any, passes: int = 10) -> None:
    """Work through the posts not done until every one is: a decision proposes its surface
    in posts done already (propagation), which reopens them, as a team's queue does."""
    from annotator.models import Document, DocumentStatus

    for _ in range(passes):
        left = list(
            Document.objects.filter(project=project)
            .exclude(status=DocumentStatus.DONE)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        if not left:
            return
        for document_id in left:
            _accept_everything(Document.objects.get(pk=document_id), person)


def _accept_everything(document: Any, person: Any) -> None:
    """The page's "accept all", then one by one what it left (confirming less than a word);
    what still cannot be accepted is rejected; then "done"."""
    from annotator.errors import DomainError
    from annotator.models import Span
    from annotator.services.spans import (
        SpanChange,
        document_status_set,
        span_update,
        spans_decide_all,
    )

    spans_decide_all(document=document, actor=person, status="accepted")
    for span in Span.objects.for_document(document).proposed().order_by("start", "-end"):
        current = Span.objects.filter(pk=span.pk).values_list("version", "status").first()
        if current is None or current[1] != "proposed":
            continue
        for change in (SpanChange(status="accepted", confirm=True),
                       SpanChange(status="rejected")):  # fmt: skip
            try:
                span_update(document=document, span_id=span.pk, actor=person,
                            version=current[0], change=change)  # fmt: skip
                break
            except DomainError:
                continue
    document.refresh_from_db()
    # A proposal that came meanwhile (propagation) keeps it open: the next round decides it.
    with contextlib.suppress(DomainError):
        document_status_set(document=document, actor=person, status="done")


def _release_until_done(
    project: Any, person: Any, rounds: int, outcome: Outcome, out: Callable[[str], None]
) -> tuple[Any, dict[int, list[tuple[int, int]]]]:
    """Cut releases, fixing what each refusal names, until one passes or `rounds` are cut.
    The last release, and every stretch a refusal named, by document id."""
    from annotator.models import Document, JobStatus
    from annotator.selectors.release_pages import release_leak_rows
    from annotator.services.releases.build import release_build
    from annotator.services.releases.create import release_create

    refused_at: dict[int, list[tuple[int, int]]] = defaultdict(list)
    release = None
    for round_number in range(1, rounds + 1):
        outcome.rounds = round_number
        release = release_create(project=project, strategy="S2", format="jsonl",
                                 actor=person, dispatch=False)  # fmt: skip
        release = release_build(release.pk, ner_here=True)
        if release.status != JobStatus.REFUSED:
            break
        fixes: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
        for row in release_leak_rows(release):
            for finding in row.findings:
                stretches = finding.get("uncovered") or [
                    [finding["document_start"], finding["document_end"]]
                ]
                for start, end in stretches:
                    refused_at[row.document_id].append((start, end))
                    fixes[row.document_id].append((start, end, str(finding.get("label") or "")))
        out(f"release {release.version} refused: {sum(map(len, fixes.values()))} stretches "
            f"in {len(fixes)} posts")  # fmt: skip
        for document_id, stretches in fixes.items():
            document = Document.objects.get(pk=document_id)
            outcome.spans_added_on_refusal += _fix(document, stretches, person)
        _finish_all(project, person)
    assert release is not None
    return release, refused_at


def _fix(document: Any, stretches: Iterable[tuple[int, int, str]], person: Any) -> int:
    """A person decides each stretch a refusal named: the span a person decided next to it
    (or across it) grows over it ("Aubervaux’" over the "s" of "Aubervaux’s"); else a new span
    over it, confirmed, under the finding's label, or the one the table holds for the
    surface (one surface, one label)."""
    from annotator.errors import DomainError
    from annotator.models import Span, SpanStatus
    from annotator.services.spans import SpanChange, span_create, span_update
    from annotator.services.table import SurfaceConflict

    labels = document.project.labels
    added = 0
    for start, end, label in sorted(set(stretches)):
        touching = Span.objects.filter(document=document, start__lte=end, end__gte=start)
        mine = touching.filter(status=SpanStatus.ACCEPTED).order_by("start").first()
        if mine is not None:
            change = SpanChange(start=min(mine.start, start), end=max(mine.end, end), confirm=True)
            try:
                span_update(document=document, span_id=mine.pk, actor=person,
                            version=mine.version, change=change)  # fmt: skip
                added += 1
                continue
            except DomainError:
                pass
        label = label if label in labels else "PER"
        for _attempt in range(2):
            try:
                span_create(document=document, actor=person, start=start, end=end, label=label,
                            confirm=True)  # fmt: skip
                added += 1
                break
            except SurfaceConflict as conflict:
                label = conflict.winner.label  # the table's label for the surface
            except DomainError:
                break
    return added


def _published(release: Any) -> dict[str, str]:
    """The released text of each post, by external id ({} when nothing was published)."""
    from annotator.models import JobStatus
    from annotator.services.releases.files import release_data_path

    if release.status != JobStatus.DONE:
        return {}
    texts: dict[str, str] = {}
    with release_data_path(release).open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            texts[str(record["id"])] = str(record["text"])
    return texts


def _rejected_stretches(project: Any) -> dict[int, list[tuple[int, int]]]:
    from annotator.models import Span, SpanStatus

    found: dict[int, list[tuple[int, int]]] = defaultdict(list)
    rows = Span.objects.filter(document__project=project, status=SpanStatus.REJECTED)
    for document_id, start, end in rows.values_list("document_id", "start", "end"):
        found[document_id].append((start, end))
    return found


def _overlaps(plant: Planted, stretch: tuple[int, int]) -> bool:
    return stretch[0] < plant.end and stretch[1] > plant.start


def _in_clear(plant: Planted, person: Person, text: str) -> bool:
    """Whether the released `text` holds what was planted: as written, or a word of the
    person's name (or of the planted identifier) of four letters or more, folded."""
    from pseudonymizer.folding import fold

    if plant.surface in text:
        return True
    folded = fold(text)
    words = {fold(word) for word in [*person.words, *plant.surface.split()]}
    return any(len(word) >= 4 and word in folded for word in words)


# --- The command -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--documents", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--ner", action="store_true", help="pre-annotate with the NER models")
    parser.add_argument("--json", type=Path, help="write the report here too")
    args = parser.parse_args(argv)

    from bench.import_bench import django_on_fresh_database

    # No model is learned on the way (every 200 decisions by default, trained in this very
    # process with the tasks run eagerly): what is measured is the detection a project
    # starts with, and the table.
    os.environ.setdefault("CLOAK_LEARN_EVERY", "0")
    django_on_fresh_database()
    from annotator.celery import app as celery_app

    celery_app.conf.task_always_eager = True  # propagation passes run here, in order
    corpus = generate(args.documents, seed=args.seed)
    forms = sorted({plant.form for plant in corpus.planted})
    print(f"{len(corpus.records)} posts, {len(corpus.planted)} planted identifiers in "
          f"{len(forms)} forms")  # fmt: skip
    outcome = run_team(corpus, use_ner=args.ner, rounds=args.rounds)
    report = outcome.as_dict()
    print(f"\n{'form':28} {'planted':>8} {'refused':>8} {'published':>10}  why")
    for form, row in report["forms"].items():
        why = ", ".join(f"{reason}: {count}" for reason, count in row["why"].items())
        print(f"{form:28} {row['planted']:8} {row['refused']:8} {row['published']:10}  {why}")
    total = sum(outcome.published.values())
    print(f"\nrelease: {outcome.release_status} after {outcome.rounds} round(s); "
          f"{outcome.spans_added_on_refusal} spans added on refusals; {outcome.left_out} posts "
          f"left out {dict(outcome.left_out_why)}; published: {total} of "
          f"{sum(outcome.planted.values())}")  # fmt: skip
    print("seconds: " + ", ".join(f"{k} {v}" for k, v in report["seconds"].items()))
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    if outcome.release_status != "done":
        return 2  # no release passed: nothing published says nothing
    return 0 if total == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
