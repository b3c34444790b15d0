"""A model learned from decided spans: training, loading, offsets, negatives, determinism."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from pseudonymizer.detection import Detector
from pseudonymizer.learning import (
    META_FILE,
    Example,
    LearnedRecognizer,
    LearningError,
    _annotated,
    _blank,
    _Counts,
    load,
    read_examples,
    train,
)
from pseudonymizer.spans import Span
from pseudonymizer.vocabulary import Source

PEOPLE = ["Moshe Chaya", "Alice Durand", "Tom Reddle", "Karim Benali", "Ines Moreau"]
PLACES = ["Lyon", "Nantes", "Grenoble"]
TEMPLATES = [
    "Yesterday {per} travelled to {loc} for work.",
    "😀 Good news: {per} moved to {loc}!\r\nEveryone was happy.",
    "In {loc}, {per} opened a bakery 🥐 last spring.",
    "We called {per} twice.\r\nNo answer from {loc} yet.",
    "The letter from {per} arrived this morning.",
]


def spans_of(text: str, surface: str, label: str) -> list[Span]:
    found, start = [], text.find(surface)
    while start >= 0:
        found.append(Span(start, start + len(surface), label))
        start = text.find(surface, start + len(surface))
    return found


def english_examples(count: int = 30, seed: int = 1) -> list[Example]:
    rng = random.Random(seed)
    examples = []
    for index in range(count):
        person, place = rng.choice(PEOPLE), rng.choice(PLACES)
        text = TEMPLATES[index % len(TEMPLATES)].format(per=person, loc=place)
        spans = spans_of(text, person, "PER") + spans_of(text, place, "LOC")
        # "Yesterday" and "Good news" were proposed as names and rejected.
        rejected = spans_of(text, "Yesterday", "PER") + spans_of(text, "Good news", "ORG")
        examples.append(Example(text=text, spans=spans, rejected=rejected))
    return examples


@pytest.fixture(scope="module")
def english_model(tmp_path_factory: pytest.TempPathFactory) -> LearnedRecognizer:
    folder = tmp_path_factory.mktemp("learned") / "en"
    train(english_examples(), "en", folder, iterations=15, seed=0)
    return load(folder)


def test_a_trained_model_finds_a_name_it_learned_in_a_new_sentence(
    english_model: LearnedRecognizer,
) -> None:
    text = "Yesterday Alice Durand travelled to Grenoble for work."

    found = english_model(text)

    assert ("Alice Durand", "PER") in [(span.surface(text), span.label) for span in found]
    assert {span.source for span in found} == {Source.LEARNED.value}
    assert english_model.language == "en"
    assert english_model.labels == ["LOC", "PER"]


def test_offsets_are_code_points_after_emoji_and_crlf(english_model: LearnedRecognizer) -> None:
    text = "😀🥐 Good news: Tom Reddle moved to Lyon!\r\nEveryone was happy.\r\n😀"

    found = english_model(text)

    assert ("Tom Reddle", "PER") in [(span.surface(text), span.label) for span in found]
    person = next(span for span in found if span.surface(text) == "Tom Reddle")
    assert (person.start, person.end) == (text.index("Tom"), text.index("Tom") + 10)
    assert all(span.surface(text) == span.surface(text).strip() for span in found)


def test_rejected_spans_are_outside_and_unaligned_ones_unannotated() -> None:
    nlp = _blank("en")
    text = "Yesterday Moshe Chaya met the Durandville mayor."
    example = Example(
        text=text,
        spans=[*spans_of(text, "Moshe Chaya", "PER"), Span(30, 36, "LOC")],  # "Durand" inside
        rejected=spans_of(text, "Yesterday", "PER"),
    )
    counts = _Counts()

    doc = _annotated(nlp, example, {"PER", "LOC"}, counts)

    tags = {token.text: (token.ent_iob_, token.ent_type_) for token in doc}
    assert tags["Yesterday"] == ("O", "")  # a rejected proposal is a known negative
    assert tags["Moshe"] == ("B", "PER") and tags["Chaya"] == ("I", "PER")
    assert tags["Durandville"] == ("", "")  # neither entity nor outside: teaches nothing
    assert tags["mayor"] == ("O", "")
    assert (counts.spans, counts.unaligned) == (1, 1)


def test_misaligned_spans_are_counted_and_training_goes_on(tmp_path: Path) -> None:
    examples = english_examples(12)
    text = "The Durandville mayor met Ines Moreau."
    examples.append(
        Example(text=text, spans=[Span(4, 10, "PER"), *spans_of(text, "Ines Moreau", "PER")])
    )

    report = train(examples, "en", tmp_path / "model", iterations=2)

    assert report.unaligned == 1
    assert report.spans == sum(len(example.spans) for example in examples) - 1
    assert load(tmp_path / "model").labels == ["LOC", "PER"]


def test_held_out_examples_are_scored_and_saved_with_the_model(tmp_path: Path) -> None:
    report = train(english_examples(), "en", tmp_path / "model", iterations=10, held_out_share=0.2)

    assert (report.examples, report.held_out) == (30, 6)
    assert set(report.scores) == {"*", "LOC", "PER"}
    for scores in report.scores.values():
        assert set(scores) == {"precision", "recall", "f1"}
        assert all(0.0 <= value <= 1.0 for value in scores.values())
    assert report.scores["*"]["recall"] > 0.5
    meta = json.loads((tmp_path / "model" / META_FILE).read_text(encoding="utf-8"))
    assert meta["language"] == "en" and meta["labels"] == ["LOC", "PER"]
    assert meta["examples"] == 30 and meta["held_out"] == 6
    assert meta["scores"] == report.scores
    assert isinstance(meta["format"], int)


def test_the_held_out_split_is_recorded_and_rescoring_it_gives_the_scores(
    tmp_path: Path,
) -> None:
    examples = english_examples()
    report = train(examples, "en", tmp_path / "model", iterations=10, held_out_share=0.2)

    held = report.held_out_indexes
    assert len(held) == report.held_out == 6 and held == sorted(set(held))
    assert all(0 <= index < len(examples) for index in held)
    meta = json.loads((tmp_path / "model" / META_FILE).read_text(encoding="utf-8"))
    assert meta["held_out_indexes"] == held
    model = load(tmp_path / "model")
    assert model.score([examples[index] for index in held]) == report.scores
    # The split follows the seed: another seed holds out other examples.
    other = train(examples, "en", tmp_path / "other", iterations=1, held_out_share=0.2, seed=5)
    assert other.held_out_indexes != held
    assert model.score([]) == {}


def test_no_held_out_share_means_no_scores(tmp_path: Path) -> None:
    report = train(english_examples(10), "en", tmp_path / "model", iterations=1)

    assert (report.held_out, report.scores, report.held_out_indexes) == (0, {}, [])


def test_training_with_a_seed_is_deterministic(tmp_path: Path) -> None:
    texts = [
        "Yesterday Karim Benali travelled to Nantes for work.",
        "We called Ines Moreau twice.\r\nNo answer from Lyon yet.",
        "In Paris, Jean Valjean opened a bakery.",
    ]
    first = train(english_examples(), "en", tmp_path / "a", iterations=5, seed=7)
    second = train(english_examples(), "en", tmp_path / "b", iterations=5, seed=7)

    assert first.spans == second.spans
    assert load(tmp_path / "a").recognize(texts, "en") == load(tmp_path / "b").recognize(
        texts, "en"
    )


def test_arabic_spans_after_proclitics_align_and_are_found(tmp_path: Path) -> None:
    people = ["أحمد بن سلمان", "خالد العتيبي", "محمد الشهري"]
    places = ["الرياض", "القاهرة", "دمشق"]
    rng = random.Random(0)
    examples = []
    for _ in range(30):
        person, place = rng.choice(people), rng.choice(places)
        # و and ب glued to the names: "وأحمد", "بالرياض".
        text = f"وصل {person} إلى {place} أمس، وقال و{person} إنه سعيد ب{place}."
        examples.append(
            Example(text=text, spans=spans_of(text, person, "PER") + spans_of(text, place, "LOC"))
        )

    report = train(examples, "ar", tmp_path / "ar", iterations=10)
    model = load(tmp_path / "ar")
    text = "التقى خالد العتيبي وأحمد بن سلمان في دمشق."
    found = [(span.surface(text), span.label) for span in model(text)]

    assert report.unaligned == 0
    assert ("أحمد بن سلمان", "PER") in found  # without its و
    assert ("خالد العتيبي", "PER") in found
    assert model.language == "ar"


def test_a_learned_model_joins_detection_in_its_language_only(
    english_model: LearnedRecognizer,
) -> None:
    detector = Detector(use_ner=False, learned=[english_model])
    text = "Yesterday Alice Durand wrote to alice@example.org."

    english = detector.detect([text], "en").spans[0]
    french = detector.detect([text], "fr").spans[0]

    assert ("Alice Durand", "learned") in [(s.surface(text), s.source) for s in english]
    assert "learned" not in {span.source for span in french}
    assert "EMAIL" in {span.label for span in english}  # the profile's patterns still run


def test_missing_and_foreign_folders_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(LearningError, match="no such model folder"):
        load(tmp_path / "nowhere")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(LearningError, match="not a learned model"):
        load(tmp_path / "other")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / META_FILE).write_text('{"format": 999}', encoding="utf-8")
    with pytest.raises(LearningError, match="format 999"):
        load(tmp_path / "old")


def test_training_never_replaces_a_folder_that_is_not_a_model(tmp_path: Path) -> None:
    folder = tmp_path / "other"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")

    with pytest.raises(LearningError, match="not a learned model"):
        train(english_examples(5), "en", folder, iterations=1)
    assert [path.name for path in folder.iterdir()] == ["notes.txt"]


def test_training_again_replaces_the_model_whole(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    train(english_examples(5), "en", folder, iterations=1)
    train(english_examples(8), "en", folder, iterations=1, labels=["PER"])

    assert load(folder).labels == ["PER"]
    assert json.loads((folder / META_FILE).read_text(encoding="utf-8"))["examples"] == 8
    assert sorted(path.name for path in tmp_path.iterdir()) == ["model"]  # no leftovers


def test_nothing_to_learn_is_an_error_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(LearningError, match="no decided spans"):
        train([Example(text="Nothing here.", spans=[])], "en", tmp_path / "model")
    with pytest.raises(LearningError, match="token edges"):
        train([Example(text="Durandville", spans=[Span(0, 6, "PER")])], "en", tmp_path / "model")
    with pytest.raises(LearningError, match="no language"):
        train(english_examples(3), "xx-nope", tmp_path / "model")
    assert not (tmp_path / "model").exists()


def test_read_examples_splits_positives_and_rejected(tmp_path: Path) -> None:
    path = tmp_path / "decided.jsonl"
    text = "Moshe Chaya lives in Lyon."
    lines = [
        {
            "id": "1",
            "lang": "en",
            "text": text,
            "spans": [
                {"start": 0, "end": 11, "label": "PER"},
                {"start": 21, "end": 25, "label": "LOC", "status": "accepted"},
                {"start": 12, "end": 17, "label": "PER", "status": "rejected"},
            ],
        },
        {"id": "2", "lang": "fr", "text": "Autre langue.", "spans": []},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    examples = read_examples(path, "en")

    assert examples == [
        Example(
            text=text,
            spans=[Span(0, 11, "PER", source="import"), Span(21, 25, "LOC", source="import")],
            rejected=[Span(12, 17, "PER", source="import")],
        )
    ]


def test_read_examples_refuses_an_unknown_status(tmp_path: Path) -> None:
    from pseudonymizer.formats import FormatError

    path = tmp_path / "decided.jsonl"
    record = {"text": "Moshe", "spans": [{"start": 0, "end": 5, "label": "PER", "status": "maybe"}]}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")

    with pytest.raises(FormatError, match="status"):
        read_examples(path)


def test_progress_is_reported_after_each_pass(tmp_path: Path) -> None:
    passes: list[tuple[int, int]] = []
    train(
        english_examples(10), "en", tmp_path / "model", iterations=3, seed=1,
        progress=lambda done, total: passes.append((done, total)),
    )  # fmt: skip
    assert passes == [(1, 3), (2, 3), (3, 3)]


# --- Partial examples: what the table proposes in a text nobody finished ----------------------


def test_a_partial_example_teaches_its_spans_and_nothing_about_the_rest() -> None:
    nlp = _blank("en")
    text = "Yesterday Moshe Chaya met Anna Kowalczyk in Lyon."
    example = Example(
        text=text,
        spans=spans_of(text, "Moshe Chaya", "PER"),  # the table's occurrence
        rejected=spans_of(text, "Yesterday", "PER"),
        partial=True,
    )

    doc = _annotated(nlp, example, {"PER", "LOC"}, _Counts())

    tags = {token.text: (token.ent_iob_, token.ent_type_) for token in doc}
    assert tags["Moshe"] == ("B", "PER") and tags["Chaya"] == ("I", "PER")
    assert tags["Yesterday"] == ("O", "")  # a rejected proposal is still a known negative
    # Nobody has looked at the rest: "Anna Kowalczyk" and "Lyon" may be names.
    assert tags["Anna"] == tags["Kowalczyk"] == tags["Lyon"] == tags["met"] == ("", "")


def test_partial_examples_are_trained_on_and_never_held_out(tmp_path: Path) -> None:
    examples = english_examples(20)
    partial = [
        Example(text=example.text, spans=example.spans, partial=True)
        for example in english_examples(10, seed=7)
    ]
    mixed = [*partial[:5], *examples, *partial[5:]]

    report = train(mixed, "en", tmp_path / "model", iterations=2, held_out_share=0.25)

    assert report.held_out == 5  # a quarter of the 20 finished ones
    assert all(not mixed[index].partial for index in report.held_out_indexes)
    assert report.spans == sum(
        len(example.spans) for index, example in enumerate(mixed)
        if index not in report.held_out_indexes
    )  # fmt: skip
    # Without partial examples the split is the one it always was.
    alone = train(examples, "en", tmp_path / "alone", iterations=1, held_out_share=0.25)
    assert [examples[index] for index in alone.held_out_indexes] == [
        mixed[index] for index in report.held_out_indexes
    ]


def test_read_examples_reads_a_partial_document(tmp_path: Path) -> None:
    from pseudonymizer.formats import FormatError

    path = tmp_path / "decided.jsonl"
    record = {
        "text": "Moshe left.",
        "partial": True,
        "spans": [{"start": 0, "end": 5, "label": "PER"}],
    }
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (example,) = read_examples(path)
    assert example.partial and example.spans == [Span(0, 5, "PER", source="import")]

    path.write_text(json.dumps({**record, "partial": "yes"}) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match="partial"):
        read_examples(path)
