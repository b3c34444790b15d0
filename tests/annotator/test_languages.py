from annotator.languages import language_label


def test_a_known_code_is_named_with_its_code() -> None:
    assert language_label("de") == "German (de)"


def test_a_regional_code_is_named_by_its_language() -> None:
    assert language_label("pt-BR") == "Portuguese (pt-BR)"


def test_an_unknown_code_stands_for_itself() -> None:
    assert language_label("xx") == "xx"
