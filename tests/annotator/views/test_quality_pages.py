"""The quality page (leads and admins) and its server-drawn SVG charts."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from django.urls import reverse

from annotator.charts import LABEL_CHARS, Datum, bar_chart, line_chart
from annotator.models import DocumentStatus, PreannotationRun, RunBatch, SpanStatus
from tests.conftest import Team, client_for
from tests.factories import DocumentFactory, SpanFactory

SVG = "{http://www.w3.org/2000/svg}"
TEXT = "Moshe Chaya met Sara Mansour in Beirut on Monday."


def at(surface: str) -> tuple[int, int]:
    start = TEXT.index(surface)
    return start, start + len(surface)


# --- Charts ----------------------------------------------------------------------------------


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # noqa: S314 - our own output


def test_a_bar_chart_is_an_image_with_a_title_and_a_bar_per_label() -> None:
    svg = bar_chart(
        [Datum("PER", 0.75), Datum("LOC", 0.5, "50%")], title="Recall", description="Per label"
    )
    root = parse(svg)
    assert root.get("role") == "img"
    assert root.get("aria-label") == "Recall. Per label"
    assert root.find(f"{SVG}title").text == "Recall"  # type: ignore[union-attr]
    assert root.find(f"{SVG}desc").text == "Per label"  # type: ignore[union-attr]
    groups = root.findall(f"{SVG}g")
    assert [g.find(f"{SVG}title").text for g in groups] == ["PER: 0.75", "LOC: 50%"]  # type: ignore[union-attr]
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert texts == ["PER", "0.75", "LOC", "50%"]
    # The bar is as long as its value: a half of the track, three quarters of it.
    tracks = [r for r in root.iter(f"{SVG}rect") if r.get("fill") == "#eef1f4"]
    bars = [r for r in root.iter(f"{SVG}rect") if r.get("fill") == "#1f5f8b"]
    ratios = [
        float(b.get("width", 0)) / float(t.get("width", 1))
        for b, t in zip(bars, tracks, strict=True)
    ]
    assert ratios == pytest.approx([0.75, 0.5], abs=0.01)


def test_labels_and_titles_are_escaped() -> None:
    hostile = '<script>alert("x")</script> & "PER"'
    for svg in (
        bar_chart([Datum(hostile, 1.0)], title=hostile, description=hostile),
        line_chart([Datum(hostile, 0.5)], title=hostile, description=hostile),
    ):
        assert "<script>" not in svg
        assert "&lt;script&gt;" in svg
        root = parse(svg)  # still well-formed XML
        assert root.get("aria-label", "").startswith('<script>alert("x")')
        assert root.find(f"{SVG}title").text == hostile  # type: ignore[union-attr]
        assert any(hostile in (g.findtext(f"{SVG}title") or "") for g in root.iter(f"{SVG}g"))


def test_values_outside_the_scale_stay_inside_the_chart_and_long_labels_are_cut() -> None:
    root = parse(bar_chart([Datum("X" * 80, 1.7), Datum("Y", -0.2)], title="t"))
    bars = [r for r in root.iter(f"{SVG}rect") if r.get("fill") == "#1f5f8b"]
    track = next(r for r in root.iter(f"{SVG}rect") if r.get("fill") == "#eef1f4")
    assert [float(b.get("width", 0)) for b in bars] == [float(track.get("width", 0)), 0.0]
    label = next(root.iter(f"{SVG}text")).text or ""
    assert len(label) == LABEL_CHARS and label.endswith("…")


def test_a_line_chart_puts_points_in_order_and_on_the_scale() -> None:
    svg = line_chart(
        [Datum("2026-W10", 0.0), Datum("2026-W11", 1.0), Datum("2026-W12", 0.5)],
        title="Kappa",
        height=200,
    )
    root = parse(svg)
    assert root.get("role") == "img"
    points = [(float(c.get("cx", 0)), float(c.get("cy", 0))) for c in root.iter(f"{SVG}circle")]
    xs, ys = zip(*points, strict=True)
    assert list(xs) == sorted(xs)
    assert ys[0] > ys[2] > ys[1]  # 0 lowest, 1 highest (SVG's y grows downwards)
    assert root.find(f"{SVG}polyline") is not None


def test_an_empty_chart_says_so() -> None:
    for svg in (bar_chart([], title="t"), line_chart([], title="t")):
        assert "No data yet" in svg
        parse(svg)


# --- The page --------------------------------------------------------------------------------


def url(**params: Any) -> str:
    base = reverse("quality", kwargs={"slug": "radical"})
    return base + ("?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else "")


@pytest.fixture
def measured(team: Team) -> dict[str, Any]:
    """One finished English document: Moshe Chaya found exactly, Sara Mansour found as "Sara",
    Monday wrongly proposed as a place and rejected, Beirut added by a person; and a
    double-annotated pair."""
    run = PreannotationRun.objects.create(project=team.project, language="en", status="done")
    document = DocumentFactory(project=team.project, text=TEXT, status=DocumentStatus.DONE)
    RunBatch.objects.create(run=run, number=1, language="en", document_ids=[document.pk])
    for surface, proposed, label, status in [
        ("Moshe Chaya", "Moshe Chaya", "PER", SpanStatus.ACCEPTED),
        ("Sara Mansour", "Sara", "PER", SpanStatus.ACCEPTED),
        ("Monday", "Monday", "LOC", SpanStatus.REJECTED),
    ]:
        p_start, p_end = at(proposed)
        SpanFactory(document=document, start=at(surface)[0], end=at(surface)[1], label=label,
                    source="ner", status=status, run=run, proposed_start=p_start,
                    proposed_end=p_end, proposed_label=label)  # fmt: skip
    SpanFactory(document=document, start=at("Beirut")[0], end=at("Beirut")[1], label="LOC",
                source="human", status=SpanStatus.ACCEPTED)  # fmt: skip
    replica = DocumentFactory(
        project=team.project, text=TEXT, status=DocumentStatus.DONE, replica_of=document
    )
    SpanFactory(document=replica, start=at("Moshe Chaya")[0], end=at("Moshe Chaya")[1],
                label="PER", source="human", status=SpanStatus.ACCEPTED)  # fmt: skip
    return {"run": run, "document": document}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("role", "status"),
    [("admin", 200), ("lead", 200), ("annotator_en", 403), ("annotator_fr", 403),
     ("outsider", 404)],
)  # fmt: skip
def test_leads_and_admins_only(
    team: Team, measured: dict[str, Any], role: str, status: int
) -> None:
    response = client_for(team.by_role()[role]).get(url())
    assert response.status_code == status
    if status != 200:
        assert b"Moshe" not in response.content and b"kappa" not in response.content


@pytest.mark.django_db
def test_anonymous_people_are_sent_to_log_in(team: Team) -> None:
    response = client_for(None).get(url())
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def cells(html: str, row: str) -> list[str]:
    """The cells of the first table row whose header is `row`."""
    match = re.search(rf'<th scope="row">{re.escape(row)}</th>(.*?)</tr>', html, re.S)
    assert match, row
    return re.findall(r"<td[^>]*>(.*?)</td>", match.group(1), re.S)


@pytest.mark.django_db
def test_the_page_shows_the_numbers_the_charts_and_what_they_mean(
    team: Team, measured: dict[str, Any]
) -> None:
    html = client_for(team.lead).get(url()).content.decode()
    # Every source: gold 3 (Moshe, Sara Mansour, Beirut), proposals 3; strict right: Moshe.
    # PER strict P/R 1/2, relaxed 1; LOC: Monday wrong, Beirut missed.
    assert cells(html, "PER")[:6] == ["0.50", "0.50", "0.50", "1.00", "1.00", "1.00"]
    assert cells(html, "LOC")[:6] == ["0.00"] * 6
    assert cells(html, "All labels")[:6] == ["0.33", "0.33", "0.33", "0.67", "0.67", "0.67"]
    # Two charts, drawn on the server, with their numbers in a table too.
    assert html.count('role="img"') == 2
    assert "Recall per label, every source together (relaxed)" in html
    assert "Agreement over time" in html
    assert "<script" not in html.split("</head>")[1]  # no chart library
    # Plain words for what strict and relaxed mean.
    assert "exactly the final start, end and label" in html
    assert "overlaps a final span of the same label" in html
    # Agreement: one pair, the replica found Moshe Chaya only.
    assert "Cohen&#x27;s kappa" in html or "Cohen's kappa" in html
    assert "No double-annotated documents" not in html
    # No text of a document on the page.
    assert "Moshe" not in html and "Beirut" not in html


@pytest.mark.django_db
def test_the_run_select_and_the_filters(team: Team, measured: dict[str, Any]) -> None:
    run = measured["run"]
    other = PreannotationRun.objects.create(project=team.project, status="done")
    html = client_for(team.admin).get(url()).content.decode()
    assert f'<option value="{run.pk}">Run {run.pk} · English (en)' in html
    assert f'<option value="{other.pk}">' in html
    assert '<option value="import">' in html
    # The other run went through no document: nothing to measure.
    html = client_for(team.admin).get(url(run=other.pk)).content.decode()
    assert "Nothing to measure yet" in html
    html = client_for(team.admin).get(url(run=run.pk, language="en")).content.decode()
    assert cells(html, "PER")[:3] == ["0.50", "0.50", "0.50"]
    assert "English (en) documents only" in html
    html = client_for(team.admin).get(url(language="fr")).content.decode()
    assert "Nothing to measure yet" in html
    assert "No double-annotated documents" in html


@pytest.mark.django_db
@pytest.mark.parametrize("params", [{"run": "999999"}, {"run": "x"}, {"language": "de"}])
def test_a_bad_filter_is_said_and_ignored(
    team: Team, measured: dict[str, Any], params: dict[str, str]
) -> None:
    response = client_for(team.lead).get(url(**params))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Some filters were ignored" in html
    assert cells(html, "PER")[:3] == ["0.50", "0.50", "0.50"]


@pytest.mark.django_db
def test_another_projects_run_is_not_offered_nor_taken(
    team: Team, measured: dict[str, Any]
) -> None:
    from annotator.models import Project

    elsewhere = Project.objects.get(slug="elsewhere")
    run = PreannotationRun.objects.create(project=elsewhere, status="done")
    html = client_for(team.admin).get(url()).content.decode()
    assert f'<option value="{run.pk}">' not in html
    assert (
        "Some filters were ignored" in client_for(team.admin).get(url(run=run.pk)).content.decode()
    )


@pytest.mark.django_db
def test_labels_are_escaped_on_the_page(team: Team) -> None:
    document = DocumentFactory(project=team.project, text=TEXT, status=DocumentStatus.DONE)
    SpanFactory(document=document, start=0, end=5, label="<b>PER</b>", source="ner",
                status=SpanStatus.ACCEPTED, proposed_start=0, proposed_end=5,
                proposed_label="<b>PER</b>")  # fmt: skip
    html = client_for(team.lead).get(url()).content.decode()
    assert "<b>PER</b>" not in html
    assert "&lt;b&gt;PER&lt;/b&gt;" in html


@pytest.mark.django_db
def test_an_empty_project_says_there_is_nothing_yet(team: Team) -> None:
    html = client_for(team.lead).get(url()).content.decode()
    assert "Nothing to measure yet" in html
    assert "No final spans here yet" in html
    assert "No double-annotated documents finished yet" in html
