"""The learned models page: each language's model versions and how well they do (leads, admins).

Leads and admins see the versions (Can.REVIEW, as the quality page): status, when, the
documents each trained on and held out, precision, recall and F1 on those held out, per
label. Admins train a new version now (Can.PREANNOTATE), as the API does
(annotator.api.learning). No text and no file path is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotator.errors import DomainError
from annotator.languages import language_label
from annotator.models import LearnedModel, Project
from annotator.permissions import Can
from annotator.selectors.learning import ACTIVE_STATUSES, learning_overview
from annotator.services.learning import learned_model_train
from annotator.views.access import project_page
from annotator.views.forms import language_choices
from annotator.views.nav import HtmxProjectRequest, project_nav
from pseudonymizer.evaluation import ANY_LABEL

VIEW_LEARNED = Can.REVIEW
TRAIN_LEARNED = Can.PREANNOTATE


class TrainForm(forms.Form):
    language = forms.ChoiceField(label="Language")

    def __init__(self, *args: Any, languages: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["language"]).choices = language_choices(languages)


@dataclass(frozen=True)
class ScoreLine:
    name: str
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class VersionRow:
    model: LearnedModel
    overall: ScoreLine | None
    per_label: list[ScoreLine]


@dataclass(frozen=True)
class LanguageSection:
    code: str
    name: str
    current: VersionRow | None
    rows: list[VersionRow]


def _line(name: str, scores: dict[str, float]) -> ScoreLine:
    return ScoreLine(
        name=name,
        precision=float(scores.get("precision", 0.0)),
        recall=float(scores.get("recall", 0.0)),
        f1=float(scores.get("f1", 0.0)),
    )


def version_row(model: LearnedModel) -> VersionRow:
    scores = model.scores if isinstance(model.scores, dict) else {}
    overall = scores.get(ANY_LABEL)
    return VersionRow(
        model=model,
        overall=_line("All labels", overall) if isinstance(overall, dict) else None,
        per_label=[
            _line(label, values)
            for label, values in sorted(scores.items())
            if label != ANY_LABEL and isinstance(values, dict)
        ],
    )


def learned_sections(project: Project) -> list[LanguageSection]:
    """Every language of the project with its model versions (also on the quality page)."""
    return [
        LanguageSection(
            code=row.language,
            name=language_label(row.language),
            current=version_row(row.current) if row.current is not None else None,
            rows=[version_row(model) for model in row.versions],
        )
        for row in learning_overview(project, project.languages)
    ]


def _page(request: HtmxProjectRequest, form: TrainForm | None, status: int) -> HttpResponse:
    sections = learned_sections(request.project)
    active = any(r.model.status in ACTIVE_STATUSES for s in sections for r in s.rows)
    return render(
        request,
        "annotator/learning.html",
        {
            **project_nav(request),
            "sections": sections,
            "train_form": form,
            "can_train": request.access.can(TRAIN_LEARNED),
            "active": active,
            "learn_every": max(0, settings.CLOAK_LEARN_EVERY),
        },
        status=status,
    )


@project_page(VIEW_LEARNED)
def _index(request: HtmxProjectRequest) -> HttpResponse:
    can_train = request.access.can(TRAIN_LEARNED)
    form = TrainForm(languages=request.project.languages) if can_train else None
    return _page(request, form, 200)


@project_page(TRAIN_LEARNED)
def _train(request: HtmxProjectRequest) -> HttpResponse:
    project = request.project
    form = TrainForm(request.POST, languages=project.languages)
    if form.is_valid():
        language = form.cleaned_data["language"]
        try:
            model = learned_model_train(project, language, trigger="admin", actor=request.user)
        except DomainError as error:
            form.add_error(None, str(error))
        else:
            messages.success(
                request,
                f"Version {model.version} of the {language_label(language)} model is "
                f"{model.get_status_display().lower()}: a worker trains it.",
            )
            return redirect("learned_models", slug=project.slug)
    return _page(request, form, 400)


@require_http_methods(["GET", "HEAD", "POST"])
def learned_models(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the project's learned models (leads and admins); POST: train one now (admins)."""
    if request.method == "POST":
        return _train(request, slug)
    return _index(request, slug)
