"""The quality page (leads and admins) and its server-drawn SVG charts."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from django.urls import reverse

from annotator.charts import LABEL_CHARS, Datum, bar_chart, line_chart
from annotator.models import DocumentStatus, PreannotationRun, RunBatch, Span, SpanStatus
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


# --- What the numbers mean, the same on the page and in the API --------------------------------

EMAIL_TEXT = "Write to ana@example.org or to www.bo@example.net today."
LONG_TEXT = (
    "Acme Corp and Globex signed in Paris with Lina Haddad on Monday, and the deal was"
    " announced to the press by the two companies."
)


def span_over(
    document: Any, surface: str, label: str, source: str, status: str, **more: Any
) -> Any:
    start = document.text.index(surface)
    return SpanFactory(document=document, start=start, end=start + len(surface), label=label,
                       source=source, status=status, **more)  # fmt: skip


def section(html: str, title_id: str) -> str:
    """The part of the page in the section labelled by `title_id`."""
    start = html.index(f'aria-labelledby="{title_id}"')
    return html[start : html.index("</section>", start)]


def api(team: Team) -> dict[str, Any]:
    response = client_for(team.lead).get(reverse("api-quality", kwargs={"slug": "radical"}))
    assert response.status_code == 200
    return response.json()  # type: ignore[no-any-return]


@pytest.fixture
def hand_made(team: Team) -> dict[str, Any]:
    """Two e-mail addresses a person kept as EMAIL: one proposed as EMAIL, the other only
    overlapped by a rejected URL proposal; the learned model's run proposed "today" as a DATE
    (rejected). A pair of 24 words: the companies COMP for the first annotator and ORG for
    the second, Paris a place for the first only, Monday a date for the second only."""
    run = PreannotationRun.objects.create(
        project=team.project, status="done", models_used={"learned:en": "v1"}
    )
    document = DocumentFactory(project=team.project, text=EMAIL_TEXT, status=DocumentStatus.DONE)
    span_over(document, "ana@example.org", "EMAIL", "regex", SpanStatus.ACCEPTED, run=run)
    span_over(document, "www.bo", "URL", "regex", SpanStatus.REJECTED, run=run)
    span_over(document, "bo@example.net", "EMAIL", "human", SpanStatus.ACCEPTED)
    span_over(document, "today", "DATE", "learned", SpanStatus.REJECTED, run=run)
    original = DocumentFactory(project=team.project, text=LONG_TEXT, status=DocumentStatus.DONE)
    replica = DocumentFactory(
        project=team.project, text=LONG_TEXT, status=DocumentStatus.DONE, replica_of=original
    )
    for surface, label in [("Acme Corp", "COMP"), ("Globex", "COMP"), ("Paris", "LOC"),
                           ("Lina Haddad", "PER")]:  # fmt: skip
        span_over(original, surface, label, "human", SpanStatus.ACCEPTED)
    for surface, label in [("Acme Corp", "ORG"), ("Globex", "ORG"), ("Lina Haddad", "PER"),
                           ("Monday", "DATE")]:  # fmt: skip
        span_over(replica, surface, label, "human", SpanStatus.ACCEPTED)
    return {"run": run}


@pytest.mark.django_db
def test_not_proposed_is_per_label_on_the_page_and_in_the_api(
    team: Team, hand_made: dict[str, Any]
) -> None:
    misses = section(client_for(team.lead).get(url()).content.decode(), "miss-title")
    body = api(team)
    by_label = {m["label"]: m for m in body["preannotation"]["misses"]}
    # EMAIL: 2 final spans, the one under a URL proposal not proposed: recall 0.50. The pair's
    # original is finished too: its COMP, LOC and PER were proposed by nobody.
    assert {label: (m["gold"], m["missed"]) for label, m in by_label.items()} == {
        "EMAIL": (2, 1), "COMP": (2, 2), "LOC": (1, 1), "PER": (1, 1),
    }  # fmt: skip
    for label, miss in by_label.items():
        assert cells(misses, label) == [
            str(miss["gold"]),
            str(miss["missed"]),
            f"{miss['strict_recall']:.2f}",
            f"{miss['relaxed_recall']:.2f}",
        ]
    assert cells(misses, "EMAIL") == ["2", "1", "0.50", "0.50"]
    assert "no proposal of the same label overlapped" in misses
    # The label average leaves out DATE and URL, only ever proposed: EMAIL (P 1, R 1/2,
    # F1 2/3), COMP, LOC and PER (0 each): (2/3) / 4.
    every = next(row for row in body["preannotation"]["sources"] if row["source"] == "all")
    assert every["relaxed"]["macro"]["f1"] == pytest.approx((2 / 3) / 4)


@pytest.mark.django_db
def test_the_labels_between_the_annotators_on_the_page_and_in_the_api(
    team: Team, hand_made: dict[str, Any]
) -> None:
    html = section(client_for(team.lead).get(url()).content.decode(), "agreement-title")
    agreement = api(team)["agreement"]
    assert agreement["confusion"] == [
        {"first": "COMP", "second": "ORG", "spans": 2},
        {"first": "LOC", "second": None, "spans": 1},
        {"first": "PER", "second": "PER", "spans": 1},
        {"first": None, "second": "DATE", "spans": 1},
    ]
    # Columns COMP DATE LOC ORG PER none; disagreements in bold.
    assert re.search(r"<th scope=\"col\" class=\"num\">COMP</th>.*?DATE.*?LOC.*?ORG.*?PER.*?"
                     r"<th scope=\"col\" class=\"num\">none</th>", html, re.S)  # fmt: skip
    assert cells(html, "COMP") == ["0", "0", "0", "<strong>2</strong>", "0", "0"]
    assert cells(html, "none") == ["0", "<strong>1</strong>", "0", "0", "0", "—"]
    # Per label: the words either annotator gave it, and who used it.
    labels = {row["key"]: row for row in agreement["labels"]}
    assert {key: row["tokens"] for key, row in labels.items()} == {
        "COMP": 3, "DATE": 1, "LOC": 1, "ORG": 3, "PER": 2,
    }  # fmt: skip
    assert '<th scope="row">COMP <span class="muted">(first annotator only)</span></th>' in html
    assert '<th scope="row">ORG <span class="muted">(second annotator only)</span></th>' in html
    assert (labels["COMP"]["kappa"], labels["COMP"]["kappa_reason"]) == (0.0, None)
    # 24 words: po = 19/24, pe = 328/576, kappa = 128/248 = 0.52 on both.
    assert agreement["overall"]["kappa"] == pytest.approx(128 / 248)
    assert "<dt>Cohen's kappa</dt><dd>0.52</dd>" in html
    assert "<dt>Words</dt><dd>24</dd>" in html


@pytest.mark.django_db
def test_too_small_a_sample_has_no_kappa_on_the_page_nor_in_the_api(
    team: Team, measured: dict[str, Any]
) -> None:
    html = client_for(team.lead).get(url()).content.decode()
    reason = "only 9 words compared; kappa needs at least 20"
    assert f"Sample too small: {reason}" in html
    assert f'<span class="muted" title="{reason}">too small</span>' in html
    assert "Below 20 words compared" in html
    assert "is four words, and an emoji none" in html  # what a word is
    overall = api(team)["agreement"]["overall"]
    assert (overall["kappa"], overall["kappa_reason"]) == (None, reason)
    # No week to draw: the chart says so rather than drawing a kappa of 1.0.
    assert "No data yet" in html


@pytest.mark.django_db
def test_the_learned_model_beside_what_it_proposed_in_runs(
    team: Team, hand_made: dict[str, Any]
) -> None:
    run = hand_made["run"]
    learned = {row["language"]: row for row in api(team)["learned"]}
    assert learned["en"] == {
        "language": "en", "run": run.pk, "model_version": "v1", "proposed": 1, "alone": 1,
        "accepted": 0, "note": "",
    }  # fmt: skip
    html = section(client_for(team.lead).get(url()).content.decode(), "learned-title")
    assert cells(html, "English (en)")[-4:] == [f"Run {run.pk} (v1)", "1", "1", "0"]
    # The model proposed what another recognizer did too: still its proposal, not alone.
    Span.objects.filter(source="learned").update(source="regex", sources=["regex", "learned"])
    html = section(client_for(team.lead).get(url()).content.decode(), "learned-title")
    assert cells(html, "English (en)")[-4:] == [f"Run {run.pk} (v1)", "1", "0", "0"]
    # A run that ran the model but stored nothing it proposed: 0, and why.
    Span.objects.filter(sources__isnull=False).update(sources=None)
    html = section(client_for(team.lead).get(url()).content.decode(), "learned-title")
    assert cells(html, "English (en)")[-4:] == [f"Run {run.pk} (v1)", "0", "0", "0"]
    assert "The model proposed nothing that run stored in this language" in html
    assert api(team)["learned"][0]["proposed"] == 0
