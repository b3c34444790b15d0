"""Tweets and other social media posts in CoNLL format, one post per document:
`social-en-wnut16` (aritter/twitter_nlp), `social-en-wnut17` (leondz/emerging_entities_17)
and `social-en-btc` (GateNLP/broad_twitter_corpus). Their test splits are held out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from bench.devdata import Document, Licence, Provenance, SetSpec, Snapshot
from bench.devdata.conll import assemble, flat_sentence, read_rows, type_counts

WNUT16_FILES = ("data/annotated/wnut16/data/train", "data/annotated/wnut16/data/dev")
# WNUT 2016's ten types. A music artist is a person or a band: PER, the closer for masking.
WNUT16_LABELS: dict[str, str | None] = {
    "person": "PER",
    "musicartist": "PER",
    "geo-loc": "LOC",
    "facility": "LOC",
    "company": "ORG",
    "sportsteam": "ORG",
    "product": "MISC",
    "movie": "MISC",
    "tvshow": "MISC",
    "other": "MISC",
}

WNUT17_FILES = ("wnut17train.conll", "emerging.dev.conll")
WNUT17_LABELS: dict[str, str | None] = {
    "person": "PER",
    "location": "LOC",
    "group": "ORG",
    "corporation": "ORG",
    "product": "MISC",
    "creative-work": "MISC",
}

BTC_SECTIONS = ("a", "b", "e", "g", "h")
BTC_LABELS: dict[str, str | None] = {"PER": "PER", "LOC": "LOC", "ORG": "ORG"}

ONE_POST = (
    "Each blank-line-separated block (a line of only whitespace counts as blank) is one post "
    "and one document; its text is its tokens joined by one space (the corpus's tokenisation "
    "is kept: a space between every two tokens), offsets computed while joining. Entities "
    "are read from the BIO tags (an `I-` after `O` or after another type starts one)."
)


def posts(
    snapshot: Snapshot,
    paths: Sequence[tuple[str, str]],
    labels: Mapping[str, str | None],
) -> tuple[list[Document], list[str]]:
    """One document per block of the files (path, id prefix), and notes on oddities."""
    documents = []
    notes = []
    types: Counter[str] = Counter()
    for path, prefix in paths:
        reading = read_rows(snapshot.read_text(path))
        for what, count in sorted(reading.odd.items()):
            notes.append(f"`{path}`: {what}: {count}")
        for number, block in enumerate(reading.blocks, 1):
            sentence = flat_sentence(block)
            types.update(type_counts([sentence]))
            text, spans = assemble([sentence], labels)
            documents.append(Document(f"{prefix}-{number:05d}", "en", "social", text, spans))
    unknown = set(types) - set(labels)
    assert not unknown, f"types with no label: {unknown}"
    notes.append("entities per source type: " + ", ".join(f"{k} {n}" for k, n in types.items()))
    return documents, notes


def convert_wnut16(snapshot: Snapshot) -> tuple[list[Document], Provenance]:
    documents, notes = posts(
        snapshot,
        [(path, "wnut16-" + path.rsplit("/", 1)[1]) for path in WNUT16_FILES],
        WNUT16_LABELS,
    )
    return documents, snapshot.provenance(
        licence=Licence(
            "GPL-3.0 (the repository's licence; the data's README names none)",
            "LICENSE",
            "GNU GENERAL PUBLIC LICENSE",
        ),
        description=(
            "The WNUT 2016 Twitter NER shared task's training and development data (English "
            "tweets, ten entity types), from `data/annotated/wnut16/` of Alan Ritter's "
            "twitter_nlp. Its `train` is the 2015 train and dev, its `dev` the 2015 test. "
            "Domain: social, English."
        ),
        conversion=[
            ONE_POST,
            "Ids are `wnut16-train-NNNNN` and `wnut16-dev-NNNNN`, numbered from 1 in file "
            "order. The typed files were read; `*_notypes` and `dev_2015*` (the same tweets) "
            "were not, nor the shared task's test data.",
        ],
        labels=WNUT16_LABELS,
        notes=notes,
    )


def convert_wnut17(snapshot: Snapshot) -> tuple[list[Document], Provenance]:
    documents, notes = posts(
        snapshot,
        [("wnut17train.conll", "wnut17-train"), ("emerging.dev.conll", "wnut17-dev")],
        WNUT17_LABELS,
    )
    return documents, snapshot.provenance(
        licence=Licence("CC BY 4.0", "README.md", "distributed under the [CC-BY 4.0]"),
        description=(
            "WNUT 2017 Emerging and Rare Entities, training and development data (English "
            "tweets, Reddit, YouTube and StackExchange comments; six entity types). The test "
            "split is held out: never read. Domain: social, English."
        ),
        conversion=[
            ONE_POST,
            "Ids are `wnut17-train-NNNNN` and `wnut17-dev-NNNNN`, numbered from 1 in file "
            "order. `wnut17train.conll` separates some posts by a line holding a lone tab: "
            "blank too.",
        ],
        labels=WNUT17_LABELS,
        notes=notes,
    )


def convert_btc(snapshot: Snapshot) -> tuple[list[Document], Provenance]:
    documents, notes = posts(
        snapshot, [(f"{s}.conll", f"btc-{s}") for s in BTC_SECTIONS], BTC_LABELS
    )
    return documents, snapshot.provenance(
        licence=Licence("CC BY 4.0", "LICENSE", "Attribution 4.0 International (CC BY 4.0)"),
        description=(
            "The Broad Twitter Corpus (Derczynski, Bontcheva and Roberts, COLING 2016), "
            "sections A, B, E, G and H: English tweets of 2011 to 2014 annotated for PER, "
            "LOC and ORG. Section F (the corpus's recommended test split) is held out: never "
            "read, nor `train_dev_test_conll/` (its `btc.test` is section F). Domain: social, "
            "English."
        ),
        conversion=[
            ONE_POST,
            "Ids are `btc-<section>-NNNNN`, numbered from 1 in file order. The CoNLL files "
            "were read, the one format the README promises for every section (they hold all "
            "the tweets of A and B, whose JSON lacks the deleted ones). Lines are split at "
            "tabs, so a token holding spaces (section H's `ke s`) stays one token.",
        ],
        labels=BTC_LABELS,
        notes=notes,
    )


WNUT16 = SetSpec(
    "social-en-wnut16",
    "aritter/twitter_nlp",
    convert_wnut16,
    withheld=("data/annotated/wnut16/data/test*",),
)
WNUT17 = SetSpec(
    "social-en-wnut17",
    "leondz/emerging_entities_17",
    convert_wnut17,
    withheld=("emerging.test*", "submissions/*", "source/*"),
)
BTC = SetSpec(
    "social-en-btc",
    "GateNLP/broad_twitter_corpus",
    convert_btc,
    withheld=("f.*", "train_dev_test_conll/*"),
)
