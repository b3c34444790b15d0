"""The Arabic recall bench reads the corpora it is run on as their annotators meant them."""

from __future__ import annotations

from pathlib import Path

from bench import arabic_recall_bench as bench


def test_nested_tags_keep_the_outermost_kept_entity(tmp_path: Path) -> None:
    corpus = tmp_path / "nested.txt"
    corpus.write_text(
        "بيان O\nبلدية B-ORG\nطولكرم I-ORG B-GPE\nإلى O\nنابلس B-GPE\nو O\n"
        "خليل B-PERS\nالسكاكيني I-PERS\n2020 B-DATE\n\n",
        encoding="utf-8",
    )
    read = bench.read_conll(corpus)
    (sentence,) = read.documents[0]
    assert sentence.tokens[1:3] == ["بلدية", "طولكرم"]
    # The town inside the municipality is dropped; the date is no kept label.
    assert sentence.entities == [(1, 3, "ORG"), (4, 5, "LOC"), (6, 8, "PER")]


def test_flat_tags_and_several_words_on_one_line(tmp_path: Path) -> None:
    corpus = tmp_path / "flat.txt"
    corpus.write_text(
        "زار O\nمحمد B-PERS\nعلي I-PERS\nالصالحية ونايفة B-LOC\n. O\n", encoding="utf-8"
    )
    read = bench.read_conll(corpus)
    (sentence,) = read.documents[0]
    assert sentence.tokens == ["زار", "محمد", "علي", "الصالحية", "ونايفة", "."]
    assert sentence.entities == [(1, 3, "PER"), (3, 5, "LOC")]
