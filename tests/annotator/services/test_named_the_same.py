"""Issue 31, traps 4 and 5: a surface that names what a decided one names (a title, a kinship
word, a head word, a proclitic before it) follows its entity and its pseudonym, in the same
words: an edge moved over "brother" keeps Victor's pseudonym, and one city has one."""

from __future__ import annotations

import pytest

from annotator.models import Span
from annotator.services.spans import SpanChange, span_create, span_update
from annotator.services.table import surface_choice
from tests.conftest import Team
from tests.factories import DocumentFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _add(team: Team, document: object, text: str, surface: str, label: str, **kw: object) -> Span:
    start = text.index(surface)
    return span_create(document=document, actor=team.annotator_en, start=start,
                       end=start + len(surface), label=label, **kw)  # fmt: skip


def _move(team: Team, document: object, span: Span, **edges: int) -> Span:
    span.refresh_from_db()
    return span_update(document=document, span_id=span.pk, actor=team.annotator_en,
                       version=span.version, change=SpanChange(**edges))  # fmt: skip


@pytest.mark.parametrize("typed", [None, "Kieran Lamb"])
def test_an_edge_moved_over_a_kinship_word_and_back_keeps_the_pseudonym(
    team: Team, typed: str | None
) -> None:
    text = "Her brother Victor Kaur phoned twice."
    document = DocumentFactory(project=team.project, text=text, assignee=team.annotator_en)
    span = _add(team, document, text, "Victor Kaur", "PER", replacement=typed)
    chosen = surface_choice(team.project, "Victor Kaur")
    assert chosen is not None and (typed is None or chosen.replacement == typed)

    moved = _move(team, document, span, start=text.index("brother"))
    wider = surface_choice(team.project, "brother Victor Kaur")
    assert moved.entity_id == chosen.entity_id
    assert wider is not None and wider.replacement == f"brother {chosen.replacement}"

    back = _move(team, document, moved, start=text.index("Victor"))
    assert back.entity_id == chosen.entity_id
    assert surface_choice(team.project, "Victor Kaur").replacement == chosen.replacement


def test_a_name_that_only_shares_a_word_gets_its_own_pseudonym(team: Team) -> None:
    text = "Victor Kaur met Victor Kaurismaki and Dr Kaur."
    document = DocumentFactory(project=team.project, text=text, assignee=team.annotator_en)
    first = _add(team, document, text, "Victor Kaur", "PER")
    other = _add(team, document, text, "Victor Kaurismaki", "PER")
    assert other.entity_id != first.entity_id


@pytest.mark.parametrize("first", ["short", "wide"])
def test_one_city_with_or_without_its_head_word_has_one_pseudonym(team: Team, first: str) -> None:
    short_text = "وصلنا إلى الإسكندرية صباحا."
    wide_text = "في مدينة الإسكندرية يسكن أخي."
    short = DocumentFactory(project=team.project, language="ar", text=short_text,
                            assignee=team.annotator_en)  # fmt: skip
    wide = DocumentFactory(project=team.project, language="ar", text=wide_text,
                           assignee=team.annotator_en)  # fmt: skip
    order = [(short, short_text, "الإسكندرية"), (wide, wide_text, "مدينة الإسكندرية")]
    if first == "wide":
        order.reverse()
    spans = [_add(team, document, text, surface, "LOC") for document, text, surface in order]
    assert spans[0].entity_id == spans[1].entity_id
    city = surface_choice(team.project, "الإسكندرية")
    head = surface_choice(team.project, "مدينة الإسكندرية")
    assert city is not None and head is not None
    assert head.replacement == f"مدينة {city.replacement}"


@pytest.mark.parametrize(
    ("address", "label"),
    [("margaret.thornbury@thornbury-law.co.uk", "EMAIL"), ("@MargaretThornbury82", "USERNAME")],
)
def test_an_address_that_holds_a_decided_name_follows_its_pseudonym(
    team: Team, address: str, label: str
) -> None:
    """`margaret.thornbury@…` became `marilyn.garrett@…` while Margaret herself became
    "Sara Phelps": an address or a handle that holds a decided name follows it."""
    text = f"Margaret Thornbury wrote from {address} again."
    document = DocumentFactory(project=team.project, text=text, assignee=team.annotator_en)
    _add(team, document, text, "Margaret Thornbury", "PER")
    person = surface_choice(team.project, "Margaret Thornbury")
    first, last = person.replacement.split(" ", 1)
    _add(team, document, text, address, label)
    followed = surface_choice(team.project, address).replacement
    if label == "EMAIL":
        local, _, domain = followed.partition("@")
        assert local == f"{first}.{last}".lower().replace(" ", "").replace("-", "")
        assert domain != "thornbury-law.co.uk" and "thornbury" not in followed.lower()
    else:
        assert followed.startswith(f"@{first}{last}".replace(" ", "").replace("-", ""))
        assert followed[-2:].isdigit() and followed[-2:] != "82"


def test_a_city_decided_apart_with_its_head_word_is_a_review_item(team: Team) -> None:
    """Trap 5: "Look for conflicts now" found nothing for الإسكندرية → البويرة beside
    مدينة الإسكندرية → مدينة المغير. Two such entities (decided before names joined, or
    with a pseudonym typed for each) are one item for the lead, raised once."""
    from annotator.models import ReviewItem, ReviewKind
    from annotator.services.review.scan import review_scan
    from annotator.services.table import surface_decide

    city = surface_decide(project=team.project, surface="الإسكندرية", language="ar",
                          label="LOC", decision="pseudonymize", replacement="البويرة")  # fmt: skip
    headed = surface_decide(project=team.project, surface="مدينة الإسكندرية", language="ar",
                            label="LOC", decision="pseudonymize",
                            replacement="مدينة المغير")  # fmt: skip
    assert city.entity_id != headed.entity_id
    surface_decide(project=team.project, surface="Victor Kaur", language="en", label="PER",
                   decision="pseudonymize", replacement="Kieran Lamb")  # fmt: skip
    surface_decide(project=team.project, surface="Victor Kaurismaki", language="en",
                   label="PER", decision="pseudonymize", replacement="Ari Lund")  # fmt: skip

    assert review_scan(project=team.project).raised == {ReviewKind.NAMED_APART: 1}
    (item,) = ReviewItem.objects.filter(kind=ReviewKind.NAMED_APART)
    assert item.entity_id == headed.entity_id
    assert item.detail == {"entities": [headed.entity_id, city.entity_id], "label": "LOC"}
    assert "الإسكندرية" not in str(item.detail)
    assert review_scan(project=team.project).total == 0  # raised once


def test_an_address_decided_before_the_name_follows_it_once_the_name_is_decided(
    team: Team,
) -> None:
    """In every order: the address first (drawn), then Margaret: the address follows her."""
    address = "margaret.thornbury@thornbury-law.co.uk"
    text = f"Write to {address}; Margaret Thornbury answers."
    document = DocumentFactory(project=team.project, text=text, assignee=team.annotator_en)
    _add(team, document, text, address, "EMAIL")
    drawn = surface_choice(team.project, address).replacement
    _add(team, document, text, "Margaret Thornbury", "PER")
    first, last = surface_choice(team.project, "Margaret Thornbury").replacement.split(" ", 1)
    followed = surface_choice(team.project, address).replacement
    assert followed != drawn
    assert followed.split("@")[0] == f"{first}.{last}".lower().replace(" ", "").replace("-", "")
