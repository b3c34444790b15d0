"""News in CoNLL format with no document boundaries, grouped into documents of about 300 to 600
tokens at sentence ends: `ar-news-anercorp` (HassanAzzam/Arabic-NER's `ANERCorp`),
`ar-news-wojood` (SinaLab/ArabicNER's public sample, nested) and `fr-news-europeana` (the
French part of EuropeanaNewspapers/ner-corpora)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from bench.devdata import NO_LICENCE, Document, Licence, Provenance, SetSpec, Snapshot
from bench.devdata.conll import (
    HIGH_TOKENS,
    LOW_TOKENS,
    Sentence,
    assemble,
    cut_sentences,
    flat_sentence,
    group,
    outermost,
    read_rows,
    type_counts,
)

ANERCORP_LABELS: dict[str, str | None] = {"PERS": "PER", "LOC": "LOC", "ORG": "ORG", "MISC": "MISC"}

WOJOOD_FILES = ("data/train.txt", "data/val.txt", "data/test.txt")
# Every type Cloak's vocabulary has a label for (`pseudonymizer.labels`: NORP, EVENT and
# PRODUCT are MISC, TIME is DATE, FAC is LOC, an occupation PROFESSION); dropped: LAW (public
# text, as `labels.py` leaves it out), LANGUAGE (names no one) and the numbers and amounts
# (no label; Wojood tags every one, identifying or not).
WOJOOD_LABELS: dict[str, str | None] = {
    "PERS": "PER",
    "GPE": "LOC",
    "LOC": "LOC",
    "FAC": "LOC",
    "ORG": "ORG",
    "NORP": "MISC",
    "EVENT": "MISC",
    "PRODUCT": "MISC",
    "DATE": "DATE",
    "TIME": "DATE",
    "OCC": "PROFESSION",
    "WEBSITE": "URL",
}
WOJOOD_DROPPED = "LAW LANGUAGE CARDINAL ORDINAL PERCENT QUANTITY UNIT MONEY CURR".split()

EUROPEANA_FILE = "enp_FR.bnf.bio/enp_FR.bnf.bio"
EUROPEANA_PAGES = "enp_FR.bnf.bio/enp_FR.bnf.md"  # the newspaper pages the file is made of
EUROPEANA_LABELS: dict[str, str | None] = {"PER": "PER", "LOC": "LOC", "ORG": "ORG"}

PUNCTUATED = (
    "The file has no document boundaries: its sentences (runs of tokens ending in `.`, `!`, "
    "`?` or `؟` tagged `O` and not followed by an `I-` tag)"
)


def grouping(sentences: str) -> str:
    """How documents are made of `sentences` (what they are, and in which order)."""
    return (
        f"{sentences} are grouped into documents of about {LOW_TOKENS} to {HIGH_TOKENS} "
        f"tokens: a document closes once it reaches {(LOW_TOKENS + HIGH_TOKENS) // 2} tokens, "
        f"or before a sentence that would take it past {HIGH_TOKENS} once it has {LOW_TOKENS}; "
        f"a tail under {LOW_TOKENS // 2} tokens joins the document before it. Tokens are "
        "joined by one space and sentences by a line break; offsets are computed while joining."
    )


def documents_of(
    sentences: list[Sentence], prefix: str, lang: str, labels: Mapping[str, str | None]
) -> list[Document]:
    """`sentences` grouped into documents `prefix-NNNN`, numbered from 1."""
    documents = []
    for number, members in enumerate(group(sentences), 1):
        text, spans = assemble(members, labels)
        documents.append(Document(f"{prefix}-{number:04d}", lang, "news", text, spans))
    return documents


def _notes(odd: Counter[str], path: str, sentences: list[Sentence]) -> list[str]:
    notes = [f"`{path}`: {what}: {count}" for what, count in sorted(odd.items())]
    tokens = sum(len(sentence.tokens) for sentence in sentences)
    counts = ", ".join(f"{k} {n}" for k, n in sorted(type_counts(sentences).items()))
    notes.append(
        f"{len(sentences):,} sentences, {tokens:,} tokens; entities kept per type: {counts}"
    )
    return notes


def convert_anercorp(snapshot: Snapshot) -> tuple[list[Document], Provenance]:
    path = "ANERCorp"
    reading = read_rows(snapshot.read_text(path), separator=" ")
    rows = [row for block in reading.blocks for row in block]
    sentences = [flat_sentence(cut) for cut in cut_sentences(rows)]
    assert set(type_counts(sentences)) <= set(ANERCORP_LABELS), type_counts(sentences)
    documents = documents_of(sentences, "anercorp", "ar", ANERCORP_LABELS)
    return documents, snapshot.provenance(
        licence=NO_LICENCE,
        description=(
            "ANERcorp (Benajiba and Rosso): about 150,000 tokens of Arabic news annotated for "
            "PERS, LOC, ORG and MISC, as the file `ANERCorp` of HassanAzzam/Arabic-NER (whose "
            "README points to the original distribution). Domain: news, Arabic."
        ),
        conversion=[
            "Lines are `word TAG` separated by a space. A line with no word (a lone ` O`) is "
            "skipped; a line with several words before its tag gives each word the tag (the "
            "entity continuing after the first), which also splits the one line where two "
            "lines ran together (`. Oالإصابة O`).",
            grouping(PUNCTUATED + ", in file order,"),
            "Ids are `anercorp-NNNN`, numbered from 1 in file order. MISC (events, products, "
            "works…) is kept as MISC (`bench/arabic_recall_bench.py`, which scores names only, "
            "drops it).",
        ],
        labels=ANERCORP_LABELS,
        notes=_notes(reading.odd, path, sentences),
    )


def convert_wojood(snapshot: Snapshot) -> tuple[list[Document], Provenance]:
    # The files concatenated as they are: each ends without a blank line, so its last
    # sentence runs into the next file's first (1,627 sentences, as the README counts them).
    reading = read_rows("".join(snapshot.read_text(path) for path in WOJOOD_FILES), separator=" ")
    sentences: list[Sentence] = []
    crossing = 0
    every_type: Counter[str] = Counter()
    for block in reading.blocks:
        layers = [row.tags for row in block]
        kept, crossed = outermost(layers, WOJOOD_LABELS)
        crossing += crossed
        every_type.update(tag[2:] for tags in layers for tag in tags if tag.startswith("B-"))
        sentences.append(Sentence([row.token for row in block], kept))
    unknown = set(every_type) - set(WOJOOD_LABELS) - set(WOJOOD_DROPPED)
    assert not unknown, f"Wojood types not accounted for: {unknown}"
    documents = documents_of(sentences, "wojood", "ar", WOJOOD_LABELS)
    notes = _notes(reading.odd, "data/*.txt", sentences)
    notes.append(
        "entity starts (B- tags) per type, every layer, before keeping the outermost: "
        + ", ".join(f"{k} {n}" for k, n in sorted(every_type.items()))
    )
    notes.append(f"{crossing} pairs of kept entities cross each other (both kept)")

    return documents, snapshot.provenance(
        licence=Licence("MIT", "LICENSE", "MIT License"),
        description=(
            "The public sample of Wojood (Jarrar et al., LREC 2022), the nested Arabic NER "
            "corpus of Birzeit University's SinaLab: `data/train.txt`, `val.txt` and "
            "`test.txt` of SinaLab/ArabicNER concatenated (the sample's three files together, "
            "not a held-out test of the full corpus, which is distributed on request). Mostly "
            "news and media text, MSA and some dialect. Domain: news, Arabic."
        ),
        conversion=[
            "Lines are a token then one or more BIO tags (`طولكرم I-ORG B-GPE`: nested "
            "entities), blocks separated by blank lines are sentences. Each entity type is "
            "read as its own BIO layer; of the kept types (all but LAW, LANGUAGE and the "
            "numbers and amounts), an entity inside a longer kept one is dropped (masking the "
            "outer span masks it too), so every token keeps its outermost kept entity. "
            "Entities of the dropped types are dropped, and a kept entity inside a dropped one "
            "(a DATE inside a LAW) stays. `bench/arabic_recall_bench.py`, which scores names, "
            "keeps PERS, GPE, LOC and ORG only.",
            "The three files are concatenated as they are (`cat`): none ends with a blank "
            "line, so the last sentence of `train.txt` and of `val.txt` runs into the next "
            "file's first (1,627 sentences, as the repository's README and "
            "`bench/arabic_recall_bench.py` count them).",
            grouping("The files have no document boundaries: their sentences"),
            "Ids are `wojood-NNNN`, numbered from 1.",
        ],
        labels={**WOJOOD_LABELS, **dict.fromkeys(WOJOOD_DROPPED)},
        notes=notes,
    )


def convert_europeana(snapshot: Snapshot) -> tuple[list[Document], Provenance]:
    pages = snapshot.read_text(EUROPEANA_PAGES).count("gallica.bnf.fr/ark:")
    reading = read_rows(snapshot.read_text(EUROPEANA_FILE), separator=" ")
    rows = [row for block in reading.blocks for row in block]
    sentences = [flat_sentence(cut) for cut in cut_sentences(rows)]
    assert set(type_counts(sentences)) <= set(EUROPEANA_LABELS), type_counts(sentences)
    documents = documents_of(sentences, "europeana-fr", "fr", EUROPEANA_LABELS)
    return documents, snapshot.provenance(
        licence=Licence("CC0", "README.md", "[CC0](https://creativecommons.org/publicdomain"),
        description=(
            f"The French part of the Europeana Newspapers NER corpora: {pages} OCRed pages of "
            "French newspapers of 1870 to 1939 from the Bibliothèque nationale de France "
            "(L'Ouest-Éclair, La Lanterne, Le Rappel, Gil Blas, Le Siècle, per "
            f"`{EUROPEANA_PAGES}`), annotated for PER, LOC and ORG. OCR errors are left as they "
            "are. Domain: news, French."
        ),
        conversion=[
            f"`{EUROPEANA_FILE}` has a `word TAG` line per token and no blank line; tags are "
            "IOB1 (`I-` only: an `I-` after `O` or after another type starts an entity). "
            f"`{EUROPEANA_PAGES}` gives line ranges per newspaper page only for its first 13 pages "
            "(the rest read `L000???`), so pages could not serve as documents.",
            grouping(PUNCTUATED + ", in file order,"),
            "Ids are `europeana-fr-NNNN`, numbered from 1 in file order.",
        ],
        labels=EUROPEANA_LABELS,
        notes=_notes(reading.odd, EUROPEANA_FILE, sentences),
    )


ANERCORP = SetSpec("ar-news-anercorp", "HassanAzzam/Arabic-NER", convert_anercorp)
WOJOOD = SetSpec("ar-news-wojood", "SinaLab/ArabicNER", convert_wojood)
EUROPEANA = SetSpec(
    "fr-news-europeana",
    "EuropeanaNewspapers/ner-corpora",
    convert_europeana,
    withheld=("enp_DE.*", "enp_NL.*"),
)
