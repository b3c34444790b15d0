from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pseudonymizer.formats import read_documents
from tests.data import SAMPLE_CORPUS

ROOT = Path(__file__).parents[2]
SAMPLES = SAMPLE_CORPUS
EN_001: dict[str, Any] = {
    "id": "en-001",
    "lang": "en",
    "text": "Hit me up @marie.delattre1, @handsomephilantropist on Insta. "
    "Shoutout to Moshe Chaya! At Rue Alphonse Metayer.",
    "spans": [
        {"start": 10, "end": 26, "label": "USERNAME"},
        {"start": 28, "end": 50, "label": "USERNAME"},
        {"start": 73, "end": 84, "label": "PER", "decision": "pseudonymize"},
        {"start": 89, "end": 109, "label": "ADDRESS"},
    ],
}
CALL = "Call +44 7700 900461 or mail tom.reddle@protonmail.example today."


def cloak(
    *args: str | Path,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("CLOAK_")}
    environment["PYTHONPATH"] = str(ROOT)
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "pseudonymizer", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=environment,
        cwd=cwd or ROOT,
        timeout=120,
    )


def records(output: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def write_jsonl(path: Path, *items: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items), "utf-8")
    return path


def span_texts(record: dict[str, Any]) -> list[tuple[str, str]]:
    text = str(record["text"])
    spans = record["spans"]
    assert isinstance(spans, list)
    return [(span["label"], text[span["start"] : span["end"]]) for span in spans]


def test_detect_writes_the_spans_found_with_score_and_source(tmp_path: Path) -> None:
    path = tmp_path / "call.txt"
    path.write_text(CALL, encoding="utf-8")

    result = cloak("detect", path, "--lang", "en", "--no-ner")

    assert result.returncode == 0, result.stderr
    (record,) = records(result.stdout)
    assert (record["id"], record["lang"], record["text"]) == ("call", "en", CALL)
    assert span_texts(record) == [
        ("PHONE", "+44 7700 900461"),
        ("EMAIL", "tom.reddle@protonmail.example"),
    ]
    assert {span["source"] for span in record["spans"]} == {"regex"}
    assert all(span["score"] == 1.0 for span in record["spans"])
    assert result.stderr == ""  # no progress bar when stderr is not a terminal


def test_the_recall_profile_is_the_default_and_precise_proposes_less() -> None:
    text = "Mr K. (no. 43185/98) was awarded EUR 3,000."
    default = cloak("detect", "-", "--lang", "en", "--no-ner", stdin=text)
    precise = cloak("detect", "-", "--lang", "en", "--no-ner", "--profile", "precise", stdin=text)
    unknown = cloak("detect", "-", "--no-ner", "--profile", "everything", stdin=text)

    assert default.returncode == precise.returncode == 0, default.stderr + precise.stderr
    assert span_texts(records(precise.stdout)[0]) == [("PER", "Mr K."), ("ID", "43185/98")]
    assert span_texts(records(default.stdout)[0]) == [
        ("PER", "Mr K."),
        ("ID", "43185/98"),
        ("MONEY", "EUR 3,000"),
    ]
    assert unknown.returncode == 2
    assert "invalid choice: 'everything'" in unknown.stderr


def test_detect_reads_standard_input_as_text_or_jsonl() -> None:
    as_text = cloak("detect", "-", "--lang", "fr", "--no-ner", stdin=CALL)
    as_jsonl = cloak(
        "detect", "--no-ner", stdin=json.dumps({"id": "x", "lang": "ar", "text": CALL})
    )

    assert as_text.returncode == 0, as_text.stderr
    assert records(as_text.stdout)[0]["lang"] == "fr"
    assert as_jsonl.returncode == 0, as_jsonl.stderr
    (record,) = records(as_jsonl.stdout)
    assert (record["id"], record["lang"]) == ("x", "ar")
    assert len(span_texts(record)) == 2


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        ("S0", "Hit me up ,  on Insta. Shoutout to ! At ."),
        (
            "S1",
            "Hit me up placeholder, placeholder on Insta. Shoutout to placeholder! At placeholder.",
        ),
        ("S2", "Hit me up USERNAME, USERNAME on Insta. Shoutout to PER! At ADDRESS."),
        ("S3", "Hit me up USERNAME_1, USERNAME_2 on Insta. Shoutout to PER_3! At ADDRESS_4."),
    ],
)
def test_pseudonymize_renders_each_strategy(tmp_path: Path, strategy: str, expected: str) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", EN_001)
    out = tmp_path / "out.jsonl"

    result = cloak("pseudonymize", source, "--strategy", strategy, "--no-ner", "-o", out)

    assert result.returncode == 0, result.stderr
    (document,) = read_documents(out)  # the output reads back: span texts match offsets
    assert document.text == expected
    if strategy != "S0":
        assert [document.text[s.start : s.end] for s in document.spans][2:] == {
            "S1": ["placeholder", "placeholder"],
            "S2": ["PER", "ADDRESS"],
            "S3": ["PER_3", "ADDRESS_4"],
        }[strategy]


def test_realistic_keeps_kept_spans_and_replaces_the_others(tmp_path: Path) -> None:
    result = cloak("pseudonymize", SAMPLES, "--strategy", "realistic", "--no-ner")

    assert result.returncode == 0, result.stderr
    rendered = {str(record["id"]): record for record in records(result.stdout)}
    originals = {str(record["id"]): record for record in records(SAMPLES.read_text("utf-8"))}
    assert rendered.keys() == originals.keys()
    for key, record in rendered.items():
        before = span_texts(originals[key])
        after = span_texts(record)
        decisions = [span.get("decision") for span in originals[key]["spans"]]
        assert [label for label, _ in after] == [label for label, _ in before]
        for (_, old), (_, new), decision in zip(before, after, decisions, strict=True):
            assert (old == new) == (decision == "keep"), (key, decision)
    # The same person is the same pseudonym in every document of the run.
    names = {
        new
        for key in ("en-001", "en-002")
        for (label, new) in span_texts(rendered[key])
        if label == "PER"
    }
    assert len(names) == 1


def test_two_runs_with_the_same_keys_give_the_same_pseudonym(tmp_path: Path) -> None:
    keys = tmp_path / "keys.json.enc"
    env = {"CLOAK_KEYS_PASSPHRASE": "correct horse battery staple"}
    first = write_jsonl(
        tmp_path / "a.jsonl",
        {
            "id": "a",
            "lang": "en",
            "text": "Moshe Chaya wrote.",
            "spans": [{"start": 0, "end": 11, "label": "PER"}],
        },
    )
    second = tmp_path / "b.txt"
    second.write_text("Yesterday MOSHE CHAYA called.", encoding="utf-8")

    run_a = cloak("pseudonymize", first, "--keys", keys, "--no-ner", env=env)
    # File B carries no spans: the key table's known entities find the name.
    run_b = cloak("pseudonymize", second, "--lang", "en", "--keys", keys, "--no-ner", env=env)

    assert run_a.returncode == 0, run_a.stderr
    assert run_b.returncode == 0, run_b.stderr
    ((_, in_a),) = span_texts(records(run_a.stdout)[0])
    ((_, in_b),) = span_texts(records(run_b.stdout)[0])
    assert in_a != "Moshe Chaya"
    assert in_b == in_a.upper()  # the same pseudonym, in the case of the surface
    assert b"Moshe" not in keys.read_bytes()  # the key file is encrypted
    assert "Moshe" not in run_a.stderr + run_b.stderr


def test_a_kept_surface_stays_kept_in_the_next_run(tmp_path: Path) -> None:
    keys = tmp_path / "keys.json.enc"
    env = {"CLOAK_KEYS_PASSPHRASE": "pass"}
    first = write_jsonl(
        tmp_path / "a.jsonl",
        {
            "id": "a",
            "lang": "fr",
            "text": "Le Monde cite Moshe Chaya.",
            "spans": [
                {"start": 0, "end": 8, "label": "ORG", "decision": "keep"},
                {"start": 14, "end": 25, "label": "PER"},
            ],
        },
    )
    second = write_jsonl(
        tmp_path / "b.jsonl",
        {
            "id": "b",
            "lang": "fr",
            "text": "Moshe Chaya lit Le Monde.",
            "spans": [{"start": 0, "end": 11, "label": "PER", "decision": "keep"}],
        },
    )

    run_a = cloak("pseudonymize", first, "--keys", keys, "--no-ner", env=env)
    detected = cloak(
        "pseudonymize", first, "--keys", keys, "--no-ner", "--spans", "detect", env=env
    )
    conflict = cloak("pseudonymize", second, "--keys", keys, "--no-ner", env=env)

    assert run_a.returncode == 0, run_a.stderr
    # Detected by the key table alone, "Le Monde" keeps its decision and the name its pseudonym.
    assert detected.returncode == 0, detected.stderr
    assert records(detected.stdout)[0]["text"] == records(run_a.stdout)[0]["text"]
    assert records(detected.stdout)[0]["text"].startswith("Le Monde cite ")
    # One surface, two decisions: refused, without printing the surface.
    assert conflict.returncode == 1
    assert "span [0, 11) PER: key table: this surface already has another decision" in (
        conflict.stderr
    )
    assert "Moshe" not in conflict.stderr


def test_keys_need_the_right_passphrase(tmp_path: Path) -> None:
    keys = tmp_path / "keys.json.enc"
    source = write_jsonl(tmp_path / "in.jsonl", EN_001)
    made = cloak(
        "pseudonymize", source, "--keys", keys, "--no-ner", env={"CLOAK_KEYS_PASSPHRASE": "right"}
    )
    assert made.returncode == 0, made.stderr

    missing = cloak("pseudonymize", source, "--keys", keys, "--no-ner")
    wrong = cloak(
        "pseudonymize", source, "--keys", keys, "--no-ner", env={"CLOAK_KEYS_PASSPHRASE": "wrong"}
    )

    assert missing.returncode == 2
    assert "CLOAK_KEYS_PASSPHRASE" in missing.stderr
    assert wrong.returncode != 0
    assert "wrong passphrase" in wrong.stderr
    assert wrong.stdout == ""


def test_evaluate_prints_precision_recall_and_f1_per_label(tmp_path: Path) -> None:
    text = "Moshe Chaya met Tom in Paris."
    gold = write_jsonl(
        tmp_path / "gold.jsonl",
        {
            "id": "d",
            "text": text,
            "spans": [
                {"start": 0, "end": 11, "label": "PER"},
                {"start": 16, "end": 19, "label": "PER"},
                {"start": 23, "end": 28, "label": "LOC"},
            ],
        },
    )
    pred = write_jsonl(
        tmp_path / "pred.jsonl",
        {
            "id": "d",
            "text": text,
            "spans": [
                {"start": 0, "end": 5, "label": "PER"},
                {"start": 16, "end": 19, "label": "PER"},
            ],
        },
    )

    strict = cloak("evaluate", gold, pred)
    relaxed = cloak("evaluate", gold, pred, "--relaxed", "--tokens")

    assert strict.returncode == 0, strict.stderr
    # strict: PER 1 of 2 right both ways -> 0.500; LOC missed; micro P = 1/2, R = 1/3.
    lines = {line.split()[0]: line.split()[1:] for line in strict.stdout.splitlines()[2:]}
    assert lines["PER"][:3] == ["0.500", "0.500", "0.500"]
    assert lines["LOC"][:3] == ["0.000", "0.000", "0.000"]
    assert lines["micro"][:2] == ["0.500", "0.333"]
    # relaxed: [0, 5) overlaps [0, 11): PER 1.000; micro P = 2/2, R = 2/3.
    lines = {line.split()[0]: line.split()[1:] for line in relaxed.stdout.splitlines()[2:]}
    assert lines["PER"][:3] == ["1.000", "1.000", "1.000"]
    assert lines["micro"][:2] == ["1.000", "0.667"]
    # tokens: gold Moshe Chaya Tom Paris (4), masked Moshe Tom (2).
    assert "2/4 identifier tokens masked" in relaxed.stdout


def test_it_writes_csv_and_conll(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", EN_001)

    as_csv = cloak(
        "pseudonymize", source, "--strategy", "S2", "--to", "csv", "-o", tmp_path / "o.csv"
    )
    as_conll = cloak(
        "pseudonymize", source, "--strategy", "S2", "--to", "conll", "-o", tmp_path / "o.conll"
    )

    assert as_csv.returncode == 0, as_csv.stderr
    assert as_conll.returncode == 0, as_conll.stderr
    (row,) = read_documents(tmp_path / "o.csv")
    assert row.text.endswith("Shoutout to PER! At ADDRESS.")
    (tokens,) = read_documents(tmp_path / "o.conll", language="en")
    assert [(s.label, tokens.text[s.start : s.end]) for s in tokens.spans][2:] == [
        ("PER", "PER"),
        ("ADDRESS", "ADDRESS"),
    ]


def test_bad_input_is_a_clear_error_and_no_output_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "a", "lang": "en", "text": "fine"}\n{"id": "b", "text": \n', "utf-8")
    out = tmp_path / "out.jsonl"

    result = cloak("pseudonymize", broken, "--strategy", "S2", "--no-ner", "-o", out)

    assert result.returncode == 1
    assert "broken.jsonl:2: invalid JSON" in result.stderr
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [broken]  # no temporary file left behind


def test_a_file_of_no_known_format_is_told_to_name_it(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# a title", encoding="utf-8")

    result = cloak("detect", notes, "--lang", "en", "--no-ner")

    assert result.returncode == 1
    assert "cannot tell the format of notes.md" in result.stderr
    assert "with --format (txt," in result.stderr


def test_missing_file_and_missing_language_are_usage_errors(tmp_path: Path) -> None:
    missing = cloak("detect", tmp_path / "nowhere.txt", "--no-ner")
    text = tmp_path / "t.txt"
    text.write_text("Hello", encoding="utf-8")
    no_language = cloak("detect", text, "--no-ner")
    no_command = cloak()

    assert (missing.returncode, "no such file" in missing.stderr) == (2, True)
    assert (no_language.returncode, "give --lang" in no_language.stderr) == (2, True)
    assert no_command.returncode == 2


def test_leak_check_fails_on_an_original_left_in_the_output(tmp_path: Path) -> None:
    source = write_jsonl(
        tmp_path / "in.jsonl",
        {
            "id": "d",
            "lang": "en",
            "text": "Moshe Chaya said moshe chaya twice.",
            "spans": [{"start": 0, "end": 11, "label": "PER"}],
        },
    )

    warned = cloak("pseudonymize", source, "--strategy", "S2", "--no-ner")
    failed = cloak("pseudonymize", source, "--strategy", "S2", "--leak-check", "fail", "--no-ner")

    assert warned.returncode == 0
    assert "possible leak: original surface at [9, 20) of the output (from [17, 28)" in (
        warned.stderr
    )
    assert failed.returncode == 1
    assert "moshe" not in failed.stderr.lower()


OTTOLINE = {
    "id": "b",
    "lang": "en",
    "text": "Yesterday the gardener met Ottoline Postlethwaite at the station.",
    # A person decided the first name alone; nobody saw the surname.
    "spans": [{"start": 27, "end": 35, "label": "PER", "decision": "pseudonymize"}],
}


def test_pseudonymize_refuses_a_name_detection_finds_that_no_span_covers(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", OTTOLINE)

    failed = cloak("pseudonymize", source, "--strategy", "S2", "--leak-check", "fail", "--no-ner")
    covered = dict(OTTOLINE, spans=[{"start": 27, "end": 49, "label": "PER"}])
    passed = cloak(
        "pseudonymize", write_jsonl(tmp_path / "ok.jsonl", covered), "--strategy", "S2",
        "--leak-check", "fail", "--no-ner",
    )  # fmt: skip

    assert failed.returncode == 1, failed.stderr
    assert "MISC found by proper-nouns at [27, 49) of the input, not decided on" in failed.stderr
    assert "postlethwaite" not in failed.stderr.lower()
    assert passed.returncode == 0, passed.stderr
    assert records(passed.stdout)[0]["text"] == "Yesterday the gardener met PER at the station."


@pytest.mark.slow
def test_pseudonymize_refuses_what_the_ner_model_finds_uncovered(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", OTTOLINE)

    failed = cloak("pseudonymize", source, "--strategy", "S2", "--leak-check", "fail")

    assert failed.returncode == 1, failed.stderr
    assert "PER found by ner at [27, 49) of the input" in failed.stderr
    # "Yesterday" is a date nobody can place: sifted out of the model's finds (issue 30).
    assert "[0, 9)" not in failed.stderr


@pytest.mark.slow
def test_detect_with_the_french_spacy_model(tmp_path: Path) -> None:
    path = tmp_path / "fr.txt"
    path.write_text("Jean Dupont habite à Marseille depuis 2019.", encoding="utf-8")

    result = cloak("detect", path, "--lang", "fr", "--ner-model", "spacy:fr_core_news_md")

    assert result.returncode == 0, result.stderr
    (record,) = records(result.stdout)
    found = span_texts(record)
    assert ("PER", "Jean Dupont") in found
    assert ("LOC", "Marseille") in found
    assert {span["source"] for span in record["spans"]} == {"ner"}


def test_a_missing_model_warns_in_detect_and_stops_pseudonymize(tmp_path: Path) -> None:
    path = tmp_path / "call.txt"
    path.write_text(CALL, encoding="utf-8")
    missing = ("--lang", "en", "--ner-model", "spacy:no_such_pipeline")

    detected = cloak("detect", path, *missing)
    stopped = cloak("pseudonymize", path, *missing)

    # detect goes on with the regular expressions and says what it went without.
    assert detected.returncode == 0, detected.stderr
    assert "no_such_pipeline" in detected.stderr
    assert len(records(detected.stdout)[0]["spans"]) == 2
    # pseudonymize refuses: names the model would have found would go out unreplaced.
    assert stopped.returncode == 1
    assert "no_such_pipeline" in stopped.stderr
    assert "--no-ner" in stopped.stderr
    assert stopped.stdout == ""


def test_each_language_takes_its_model_from_the_environment(tmp_path: Path) -> None:
    source = write_jsonl(
        tmp_path / "mixed.jsonl",
        {"id": "en", "lang": "en", "text": CALL},
        {"id": "fr", "lang": "fr", "text": CALL},
    )
    env = {"CLOAK_NER_MODEL_EN": "", "CLOAK_NER_MODEL_FR": "spacy:no_such_french_pipeline"}

    result = cloak("detect", source, env=env)

    # English runs without a model and says nothing; only French misses its own.
    assert result.returncode == 0, result.stderr
    assert "no_such_french_pipeline" in result.stderr and "'fr'" in result.stderr
    assert "'en'" not in result.stderr
    assert [len(record["spans"]) for record in records(result.stdout)] == [2, 2]


def test_a_model_spec_that_names_nothing_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "call.txt"
    path.write_text(CALL, encoding="utf-8")

    result = cloak("detect", path, "--lang", "en", "--ner-model", "spacy:")

    assert result.returncode == 2
    assert "NER model for 'en'" in result.stderr


# --- learn, and detect --learned ---------------------------------------------------------------

LEARN_PEOPLE = ("Moshe Chaya", "Alice Durand", "Karim Benali")


def decided_corpus(path: Path, count: int = 24) -> Path:
    """Decided documents: the names people accepted, and "Monday" proposed then rejected."""
    items = []
    for index in range(count):
        person = LEARN_PEOPLE[index % len(LEARN_PEOPLE)]
        text = f"On Monday {person} wrote to the council 😀.\r\nThe council answered {person}."
        spans: list[dict[str, Any]] = []
        start = text.find(person)
        while start >= 0:
            spans.append({"start": start, "end": start + len(person), "label": "PER"})
            start = text.find(person, start + 1)
        spans.append({"start": 3, "end": 9, "label": "PER", "status": "rejected"})
        items.append({"id": f"d{index}", "lang": "en", "text": text, "spans": spans})
    return write_jsonl(path, *items)


def test_learn_then_detect_with_the_learned_model(tmp_path: Path) -> None:
    decided = decided_corpus(tmp_path / "decided.jsonl")
    model = tmp_path / "model"
    source = write_jsonl(
        tmp_path / "new.jsonl",
        {"id": "n1", "lang": "en", "text": "😀 Yesterday Alice Durand wrote to tom@example.org."},
    )

    learned = cloak(
        "learn", decided, "--lang", "en", "--out", model, "--iterations", "10", "--held-out", "0.25"
    )
    found = cloak("detect", source, "--no-ner", "--learned", model)

    assert learned.returncode == 0, learned.stderr
    assert "examples: 24 (6 held out)" in learned.stdout
    assert "labels: PER" in learned.stdout
    assert (model / "cloak-learned.json").is_file()
    assert found.returncode == 0, found.stderr
    spans = records(found.stdout)[0]["spans"]
    assert {"text": "Alice Durand", "label": "PER", "source": "learned"}.items() <= next(
        span for span in spans if span["text"] == "Alice Durand"
    ).items()
    assert "EMAIL" in {span["label"] for span in spans}  # the profile still runs


def test_detect_with_a_missing_model_folder_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "call.txt"
    path.write_text(CALL, encoding="utf-8")

    result = cloak("detect", path, "--lang", "en", "--no-ner", "--learned", tmp_path / "nope")

    assert result.returncode == 2
    assert "no such model folder" in result.stderr
    assert result.stdout == ""


def test_learn_refuses_bad_input_with_a_clear_error(tmp_path: Path) -> None:
    bad = write_jsonl(
        tmp_path / "bad.jsonl",
        {"text": "Moshe", "spans": [{"start": 0, "end": 9, "label": "PER"}]},
    )
    empty = write_jsonl(tmp_path / "fr.jsonl", {"lang": "fr", "text": "Rien.", "spans": []})

    outside = cloak("learn", bad, "--lang", "en", "--out", tmp_path / "m1")
    nothing = cloak("learn", empty, "--lang", "en", "--out", tmp_path / "m2")
    share = cloak("learn", bad, "--lang", "en", "--out", tmp_path / "m3", "--held-out", "1.5")

    assert outside.returncode == 1 and "outside the text" in outside.stderr
    assert nothing.returncode == 1 and "no document in 'en'" in nothing.stderr
    assert share.returncode == 2 and "--held-out" in share.stderr
    assert not any(tmp_path.glob("m*"))
