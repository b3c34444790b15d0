"""The quality page: how far annotators agree, and how good pre-annotation is (leads, admins).

The numbers come from annotator.selectors.quality; the charts are inline SVG drawn by
annotator.charts, each with a table of the same numbers beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from django import forms
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.safestring import SafeString

from annotator.charts import Datum, bar_chart, line_chart
from annotator.languages import language_label
from annotator.models import PreannotationRun
from annotator.permissions import Can
from annotator.selectors.quality import (
    ALL_SOURCES,
    IMPORT_SCOPE,
    Agreement,
    ConfusionCell,
    LearnedProposals,
    Preannotation,
    RunScope,
    SourceScores,
    learned_proposals,
)
from annotator.selectors.runs import runs_newest_first
from annotator.services.quality import project_quality
from annotator.views.access import project_page
from annotator.views.forms import language_choices
from annotator.views.learning import LanguageSection, learned_sections
from annotator.views.nav import HtmxProjectRequest, project_nav
from pseudonymizer.evaluation import MIN_KAPPA_TOKENS, Scores
from pseudonymizer.vocabulary import Source

VIEW_QUALITY = Can.REVIEW
SOURCE_NAMES = {**{source.value: source.label for source in Source}, ALL_SOURCES: "Every source"}


def run_name(run: PreannotationRun) -> str:
    language = language_label(run.language) if run.language else "every language"
    return f"Run {run.pk} · {language} · {run.profile} · {run.created_at:%Y-%m-%d}"


class QualityFilterForm(forms.Form):
    """Which language and which proposals the page measures; both may be left empty."""

    language = forms.ChoiceField(label="Language", required=False)
    run = forms.ChoiceField(label="Proposals of", required=False)

    def __init__(
        self, *args: Any, languages: Sequence[str], runs: Sequence[PreannotationRun], **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        language = cast(forms.ChoiceField, self.fields["language"])
        language.choices = [("", "Every language"), *language_choices(languages)]
        run = cast(forms.ChoiceField, self.fields["run"])
        run.choices = [
            ("", "Every run and import"),
            (IMPORT_SCOPE, "Imported spans"),
            *((str(r.pk), run_name(r)) for r in runs),
        ]

    def scope(self) -> tuple[str | None, RunScope]:
        """The filters that passed validation; a bad one is dropped, not applied."""
        self.is_valid()
        cleaned = getattr(self, "cleaned_data", {})
        run = cleaned.get("run") or None
        return cleaned.get("language") or None, int(run) if run and run.isdigit() else run


@dataclass(frozen=True)
class ScoreRow:
    """One line of a scores table: strict and relaxed side by side."""

    name: str
    strict: Scores
    relaxed: Scores


@dataclass(frozen=True)
class SourceTable:
    source: str
    name: str
    proposed: int
    rows: list[ScoreRow]
    micro: ScoreRow
    macro_strict_f1: float
    macro_relaxed_f1: float


def source_table(scores: SourceScores) -> SourceTable:
    relaxed = {row.label: row.scores for row in scores.relaxed.labels}
    rows = [ScoreRow(row.label, row.scores, relaxed[row.label]) for row in scores.strict.labels]
    return SourceTable(
        source=scores.source,
        name=SOURCE_NAMES.get(scores.source, scores.source),
        proposed=scores.proposed,
        rows=rows,
        micro=ScoreRow("All labels", scores.strict.micro, scores.relaxed.micro),
        macro_strict_f1=scores.strict.macro.f1,
        macro_relaxed_f1=scores.relaxed.macro.f1,
    )


def recall_chart(preannotation: Preannotation) -> SafeString:
    data = [
        Datum(miss.label, miss.relaxed_recall, f"{miss.relaxed_recall:.2f}")
        for miss in preannotation.misses
    ]
    return bar_chart(
        data,
        title="Recall per label, every source together (relaxed)",
        description="The share of each label's final spans that some proposal overlapped.",
    )


def agreement_chart(agreement: Agreement) -> SafeString:
    # A week whose sample is too small has no kappa to draw: its table row says so.
    data = [
        Datum(week.name, week.kappa, f"{week.kappa:.2f}")
        for week in agreement.weeks
        if week.reported_kappa is not None
    ]
    low = -1.0 if any(datum.value < 0 for datum in data) else 0.0
    return line_chart(
        data,
        title="Agreement over time: Cohen's kappa per week",
        description=(
            "By the week the second annotation was finished; weeks with too small a sample"
            " are left out."
        ),
        low=low,
    )


NO_LABEL = "none"


@dataclass(frozen=True)
class ConfusionRow:
    name: str  # the first annotator's label, or NO_LABEL
    cells: list[tuple[int | None, bool]]  # spans per column (None: no such cell), off-diagonal


@dataclass(frozen=True)
class ConfusionTable:
    columns: list[str]  # the second annotator's labels, NO_LABEL last
    rows: list[ConfusionRow]


def confusion_table(cells: Sequence[ConfusionCell]) -> ConfusionTable:
    """The confusion cells as a square table: every label either annotator used, then none."""
    named = {label for cell in cells for label in (cell.first, cell.second) if label is not None}
    labels: list[str | None] = [*sorted(named), None]
    counts = {(cell.first, cell.second): cell.spans for cell in cells}

    def count(first: str | None, second: str | None) -> int | None:
        # No span is none for both annotators: that cell does not exist.
        return None if first is None and second is None else counts.get((first, second), 0)

    rows = [
        ConfusionRow(
            name=first or NO_LABEL,
            cells=[(count(first, second), first != second) for second in labels],
        )
        for first in labels
    ]
    return ConfusionTable(columns=[label or NO_LABEL for label in labels], rows=rows)


def learned_rows(
    sections: Sequence[LanguageSection], proposals: Sequence[LearnedProposals]
) -> list[tuple[LanguageSection, LearnedProposals | None]]:
    """Each language's model in use beside what the learned model proposed in runs."""
    by_language = {row.language: row for row in proposals}
    return [(section, by_language.get(section.code)) for section in sections]


@project_page(VIEW_QUALITY)
def quality(request: HtmxProjectRequest) -> HttpResponse:
    project = request.project
    runs = list(runs_newest_first(project))
    form = QualityFilterForm(request.GET, languages=project.languages, runs=runs)
    language, run = form.scope()
    measured = project_quality(project, language=language, run=run)
    tables = [source_table(scores) for scores in measured.preannotation.sources]
    context = {
        **project_nav(request),
        "form": form,
        "quality": measured,
        "pre": measured.preannotation,
        "agreement": measured.agreement,
        "overall_table": tables[-1],
        "source_tables": tables[:-1],
        "recall_chart": recall_chart(measured.preannotation),
        "agreement_chart": agreement_chart(measured.agreement),
        "language_name": language_label(language) if language else "",
        "language_rows": [
            (language_label(row.language), row) for row in measured.preannotation.languages
        ],
        "agreement_languages": [
            (language_label(row.key), row) for row in measured.agreement.languages
        ],
        "scope_name": (
            "every run and import"
            if run is None
            else "imported spans"
            if run == IMPORT_SCOPE
            else next((run_name(r) for r in runs if r.pk == run), f"run {run}")
        ),
    }
    context["confusion"] = confusion_table(measured.agreement.confusion)
    context["min_kappa_tokens"] = MIN_KAPPA_TOKENS
    context["learned_rows"] = learned_rows(learned_sections(project), learned_proposals(project))
    return render(request, "annotator/quality.html", context)
