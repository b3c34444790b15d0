"""The lead's review queue on the pages: the list (filtered by kind, status and language), an
item with its comments and the form that resolves or dismisses it, a comment.

Leads and admins only (Can.REVIEW), as in the API (annotator.api.review). Opening the list
asks for a scan of the project (at most every few minutes; annotator.services.review), and
the list's POST asks for one now.
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotator.audit import client_ip
from annotator.errors import ConflictError, DomainError
from annotator.models import DECISION_CHOICES, ReviewItem, ReviewKind, ReviewStatus
from annotator.permissions import Can
from annotator.selectors.review import (
    ALL_STATUSES,
    flag_counts,
    next_open_item,
    review_comments,
    review_counts,
    review_items,
    review_last_scan,
    review_row,
    span_state,
)
from annotator.services.review import resolve, scan
from annotator.services.table import review_notes_read, surface_choice
from annotator.views.access import ProjectRequest, project_page
from annotator.views.forms import form_errors, language_choices
from annotator.views.nav import HtmxProjectRequest, project_nav
from pseudonymizer.vocabulary import MAX_KEEP_REASON

ITEMS_PER_PAGE = 50
STATUS_CHOICES = [
    (ReviewStatus.OPEN.value, "Open"),
    (ReviewStatus.RESOLVED.value, "Resolved"),
    (ALL_STATUSES, "Any status"),
]


class ReviewFilterForm(forms.Form):
    kind = forms.ChoiceField(required=False, choices=[("", "Every kind"), *ReviewKind.choices])
    status = forms.ChoiceField(required=False, choices=STATUS_CHOICES)
    language = forms.ChoiceField(required=False)

    def __init__(self, *args: Any, languages: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = cast(forms.ChoiceField, self.fields["language"])
        field.choices = [("", "Every language"), *language_choices(languages)]


class ResolveForm(forms.Form):
    action = forms.ChoiceField(choices=[(resolve.RESOLVE, "Resolve"), (resolve.DISMISS, "Dismiss")])
    decision = forms.ChoiceField(required=False, choices=[("", "—"), *DECISION_CHOICES])
    replacement = forms.CharField(required=False, max_length=500, label="Pseudonym")
    label = forms.ChoiceField(required=False)
    keep_reason = forms.CharField(required=False, max_length=MAX_KEEP_REASON, label="Why keep it")
    rationale = forms.CharField(
        max_length=resolve.MAX_RATIONALE,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Required: the annotators read it on their documents.",
    )

    def __init__(self, *args: Any, labels: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = cast(forms.ChoiceField, self.fields["label"])
        field.choices = [("", "Unchanged"), *((name, name) for name in labels)]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("action") == resolve.RESOLVE and not data.get("decision"):
            self.add_error("decision", "Choose the decision to apply, or dismiss the item.")
        return data


class CommentForm(forms.Form):
    body = forms.CharField(
        label="Comment", max_length=resolve.MAX_COMMENT, widget=forms.Textarea(attrs={"rows": 2})
    )


def review_context(request: ProjectRequest) -> dict[str, Any]:
    """The review part of the project's overview: open items per kind for those who review,
    an annotator's own flags for the others."""
    project = request.project
    if request.access.can(Can.REVIEW):
        counts = review_counts(project)
        return {
            "can_review": True,
            "review_counts": counts,
            "review_open": sum(count.open for count in counts),
        }
    return {"can_review": False, "my_flags": flag_counts(project, request.user)}


def _filters(request: HtmxProjectRequest) -> ReviewFilterForm:
    data = request.GET.copy()
    data.setdefault("status", ReviewStatus.OPEN)
    form = ReviewFilterForm(data, languages=request.project.languages)
    form.is_valid()
    return form


@require_http_methods(["GET", "HEAD", "POST"])
def review_list(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the queue; POST: look for conflicts now."""
    if request.method == "POST":
        return _scan_now(request, slug)
    return _review_index(request, slug)


@project_page(Can.REVIEW)
def _review_index(request: HtmxProjectRequest) -> HttpResponse:
    project = request.project
    scan.review_scan_request(project=project)
    form = _filters(request)
    filters = {name: form.cleaned_data.get(name) or "" for name in ("kind", "status", "language")}
    page = Paginator(review_items(project, **filters), ITEMS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    notes = review_notes_read(
        project=project,
        item_ids=[item.pk for item in page],
        actor=request.user,
        ip_address=client_ip(request),
    )
    context = {
        **project_nav(request),
        "form": form,
        "page": page,
        "rows": [review_row(item, notes.get(item.pk)) for item in page],
        "counts": review_counts(project),
        "last_scan": review_last_scan(project),
    }
    if request.htmx and not request.htmx.history_restore_request:
        return render(request, "annotator/review_list.html#review-table", context)
    return render(request, "annotator/review_list.html", context)


@project_page(Can.REVIEW)
def _scan_now(request: HtmxProjectRequest) -> HttpResponse:
    scan.review_scan_request(project=request.project, force=True)
    messages.info(request, "Looking for conflicts now: reload the queue in a moment.")
    return redirect("review_list", slug=request.project.slug)


def _item(request: HtmxProjectRequest, pk: int) -> ReviewItem:
    return get_object_or_404(review_items(request.project, status=ALL_STATUSES), pk=pk)


def _detail(
    request: HtmxProjectRequest,
    item: ReviewItem,
    *,
    form: ResolveForm | None = None,
    comment_form: CommentForm | None = None,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    labels = request.project.labels
    notes = review_notes_read(
        project=request.project,
        item_ids=[item.pk],
        actor=request.user,
        ip_address=client_ip(request),
    )
    context = {
        **project_nav(request),
        "row": review_row(item, notes.get(item.pk)),
        "now": span_state(item, lambda surface: _pseudonym(request, surface)),
        "next_item": next_open_item(request.project, item) if item.status != "open" else None,
        "item": item,
        "comments": review_comments(item),
        "form": form or ResolveForm(labels=labels, initial=_initial(item)),
        "comment_form": comment_form or CommentForm(),
        "error": error,
    }
    template = "annotator/review_detail.html"
    if request.htmx and not request.htmx.history_restore_request:
        template += "#review-item"
    return render(request, template, context, status=status)


def _initial(item: ReviewItem) -> dict[str, Any]:
    """The form starts from the decision the item is about: the flagged span's own, or the
    one the annotator wanted."""
    detail = item.detail if isinstance(item.detail, dict) else {}
    wanted = detail.get("wanted")
    if isinstance(wanted, dict) and wanted.get("decision"):
        return {"action": resolve.RESOLVE, "decision": wanted["decision"]}
    if item.span is not None:
        return {"action": resolve.RESOLVE, "decision": item.span.decision}
    return {"action": resolve.RESOLVE}


@project_page(Can.REVIEW)
@require_http_methods(["GET", "HEAD", "POST"])
def review_detail(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    """GET: the item, its comments and the resolve form; POST: resolve or dismiss it."""
    item = _item(request, pk)
    if request.method != "POST":
        return _detail(request, item)
    form = ResolveForm(request.POST, labels=request.project.labels)
    if not form.is_valid():
        return _detail(request, item, form=form, error=form_errors(form), status=400)
    data = form.cleaned_data
    try:
        resolve.review_act(item=item, actor=request.user, ip_address=client_ip(request), **data)
    except ConflictError as conflict:
        return _detail(request, _item(request, pk), form=form, error=str(conflict), status=409)
    except DomainError as refused:
        return _detail(request, item, form=form, error=str(refused), status=400)
    verb = "dismissed" if data["action"] == resolve.DISMISS else "resolved"
    if request.htmx:
        return _detail(request, _item(request, pk))
    # On to the next open item of the queue, as a lead works through it; the queue once
    # none is left.
    following = next_open_item(request.project, item)
    if following is None:
        messages.success(request, f"Item {item.pk} {verb}. Nothing is left open.")
        return redirect("review_list", slug=request.project.slug)
    messages.success(request, f"Item {item.pk} {verb}. Next: #{following.pk}.")
    return redirect("review_detail", slug=request.project.slug, pk=following.pk)


def _pseudonym(request: HtmxProjectRequest, surface: str) -> str:
    choice = surface_choice(request.project, surface)
    return choice.replacement if choice is not None else ""


@project_page(Can.REVIEW)
@require_POST
def review_comment(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    item = _item(request, pk)
    form = CommentForm(request.POST)
    if not form.is_valid():
        return _detail(request, item, comment_form=form, error=form_errors(form), status=400)
    try:
        resolve.review_comment(item=item, actor=request.user, body=form.cleaned_data["body"])
    except DomainError as refused:
        return _detail(request, item, comment_form=form, error=str(refused), status=400)
    if request.htmx:
        return _detail(request, item)
    return redirect("review_detail", slug=request.project.slug, pk=item.pk)
