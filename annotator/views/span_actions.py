"""What an annotator does on the document page: one action on one span, a span added,
proposals accepted or rejected together, undo, the document marked done.

Every change goes through annotator.services.spans, as the API's do. A form posts one action
on one span with the span's `version` as the page read it. The answer is a patch of what
changed (annotator.views.workspace.render_patch) for htmx, else a redirect back to the page,
with a notice when the span changed meanwhile (its state now is shown, nothing is
overwritten) or the action was refused. A span that is gone (a run replaced it, someone
removed it) gets a patch that removes its row and says so, never a bare 404.

The page says with each action what it shows (annotator.views.workspace_sync): the patch
carries what else changed in the document since, by a run or another person, too.

Each change that went through is pushed on the session's undo stack for that document
(annotator.services.undo): `u`, or the Undo button, takes back the last one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST

from annotator.errors import (
    DomainError,
    NeedsConfirmation,
    NotFoundError,
    StaleVersion,
)
from annotator.models import DECISION_CHOICES, Document, DocumentStatus, Span, SpanStatus
from annotator.permissions import Can
from annotator.selectors.queues import next_document
from annotator.selectors.workspace import Undecided, undecided_proposals
from annotator.services.spans import (
    SpanChange,
    document_status_set,
    pseudonym_suggestions,
    span_choices,
    span_create,
    span_update_refused,
    spans_decide_all,
)
from annotator.services.table import SurfaceConflict
from annotator.services.undo import (
    SpanEdit,
    Step,
    span_update_undoable,
    undo_label,
    undo_last,
    undoable,
)
from annotator.views.access import ProjectRequest, project_page
from annotator.views.forms import BulkForm, SpanActionForm, SpanAddForm, form_errors
from annotator.views.nav import HtmxProjectRequest
from annotator.views.workspace import (
    label_colour,
    open_document,
    patch_reads,
    render_patch,
    render_workspace,
)
from annotator.views.workspace_sync import BadPageState, changes_since, page_state
from pseudonymizer.edges import character_starts, move_edge
from pseudonymizer.vocabulary import Decision

# The editor's boundary buttons: (edge, unit, extend, what the button says). Each says which
# way it moves the edge, in the text's order (earlier, later), and whether the span grows.
EDGE_MOVES = [
    ("start", "char", True, "Start one character earlier (adds it)"),
    ("start", "char", False, "Start one character later (drops it)"),
    ("start", "word", True, "Start one word earlier (adds it)"),
    ("start", "word", False, "Start one word later (drops it)"),
    ("end", "char", True, "End one character later (adds it)"),
    ("end", "char", False, "End one character earlier (drops it)"),
    ("end", "word", True, "End one word later (adds it)"),
    ("end", "word", False, "End one word earlier (drops it)"),
]
# A refusal to mark a document done names this many proposals, each cut to this many
# characters.
NAMED_PROPOSALS = 3
SNIPPET_CHARACTERS = 40
# Suggestions offered at once: keys 1-5 pick one.
SUGGESTION_KEYS = 5
STALE = "This span changed since you opened it: here it is as it is now."
GONE = (
    "This span is no longer in the document (a run or another person changed it); "
    "the list is up to date."
)


# What a person reads when their change took a finished document back to work.
REOPENED = (
    "This document was done: your change left a proposal undecided, so it is in progress "
    "again and out of the next release until it is marked done."
)


def _answer(
    request: HtmxProjectRequest,
    document: Document,
    notice: str = "",
    error: bool = False,
    *,
    changed: Iterable[int] = (),
    ranges: Iterable[tuple[int, int]] = (),
    anchor: str = "",
    confirm: dict[str, Any] | None = None,
    edit: SpanEdit | None = None,
) -> HttpResponse:
    """The patch for htmx, with what else changed since the page was patched; else back to
    the page, the notice as a message. `confirm` offers to send the refused action again,
    confirmed (`_confirmable`). After `edit`, its document (read under lock and changed by
    it) and spans (read once it was written) are the answer's: nothing is read again."""
    if edit is None:
        was = document.status
        document.refresh_from_db(fields=["status", "version"])
    else:
        was, document = edit.was, edit.document
    if was == DocumentStatus.DONE and document.status != DocumentStatus.DONE and not error:
        notice = f"{notice} {REOPENED}".strip()
    if request.htmx:
        undo = edit.undo if edit is not None else undo_label(document, request.user)
        status = {"notice": notice, "error": error, "undo": undo, "confirm": confirm}
        try:
            state = page_state(request.POST)
        except BadPageState:
            # What the page shows cannot be read: the whole workspace is right whatever it is.
            return render_workspace(request, document, **status)
        changed = list(changed)
        spans = edit.spans if edit is not None else patch_reads(document)
        meanwhile = changes_since(document, state, spans=spans) if state is not None else None
        return render_patch(
            request, document, changed=changed, ranges=ranges, meanwhile=meanwhile,
            spans=spans, **status,
        )  # fmt: skip
    if notice:
        (messages.error if error else messages.info)(request, notice)
    url = reverse("document_detail", args=[request.project.slug, document.pk])
    return redirect(f"{url}{anchor}")


def _change(form: SpanActionForm, document: Document, span_id: int) -> SpanChange:
    """What the form asks of the span. A move is worked out from the span's place now (read
    under the document's lock: NotFoundError when it is gone)."""
    span = None
    if form.cleaned_data["action"] == "move":
        span = Span.objects.filter(document=document, pk=span_id).only("start", "end").first()
        if span is None:
            raise NotFoundError(GONE)
    change = _asked(form, document, span)
    return replace(change, confirm=True) if form.cleaned_data["confirm"] else change


def _confirmable(request: HtmxProjectRequest, refused: NeedsConfirmation) -> dict[str, Any]:
    """The notice's button that sends the refused action again, confirmed: the same fields
    (not the page's state, which the page adds to every request), and what it does."""
    fields = [
        (name, value)
        for name, value in request.POST.items()
        if name not in ("csrfmiddlewaretoken", "confirm", "known", "known_document")
    ]
    return {"url": request.path, "fields": fields, "action": refused.action}


def _asked(form: SpanActionForm, document: Document, span: Span | None) -> SpanChange:
    data = form.cleaned_data
    action = data["action"]
    if action == "move" and span is not None:
        start, end = move_edge(
            document.text, span.start, span.end,
            edge=data["edge"], unit=data["unit"], extend=data["extend"],
        )  # fmt: skip
        return SpanChange(start=start, end=end)
    if action == "accept":
        return SpanChange(status=SpanStatus.ACCEPTED)
    if action == "reject":
        return SpanChange(status=SpanStatus.REJECTED)
    if action == "label":
        return SpanChange(label=data["label"])
    if action == "flag":
        return SpanChange(flag=data["comment"])
    return SpanChange(
        decision=data["decision"],
        keep_reason=data["keep_reason"] if data["decision"] == Decision.KEEP else None,
        replacement=data["replacement"] or None,
    )


@require_POST
@project_page(Can.ANNOTATE)
def span_action(request: HtmxProjectRequest, pk: int, span_id: int) -> HttpResponse:
    """One action on one span (accept, reject, label, decide, flag, move) with the version
    read.

    One transaction: the document read, checked and locked at once, then the change as a
    step of the undo stack (`span_update_undoable`), whose reads the answer shows. A refused
    change rolls back whole; a choice the table refused is then recorded for the lead."""
    form = SpanActionForm(request.POST, labels=request.project.labels)
    if not form.is_valid():
        document = open_document(request, pk)
        gone = not Span.objects.filter(document=document, pk=span_id).exists()
        notice = GONE if gone else form_errors(form)
        return _answer(request, document, notice, True, changed=[span_id])
    action = form.cleaned_data["action"]
    try:
        with transaction.atomic():
            document = open_document(request, pk, for_update=True)
            change = _change(form, document, span_id)
            edit = span_update_undoable(
                document=document, span_id=span_id, actor=request.user, action=action,
                version=form.cleaned_data["version"], change=change,
            )  # fmt: skip
    except SurfaceConflict as refused:
        span_update_refused(document=document, actor=request.user, span_id=span_id,
                            change=change, conflict=refused)  # fmt: skip
        return _answer(request, document, str(refused), True, changed=[span_id])
    except StaleVersion:
        return _answer(request, document, STALE, True, changed=[span_id])
    except NotFoundError:  # removed before the document was locked
        return _answer(request, document, GONE, True, changed=[span_id])
    except NeedsConfirmation as refused:
        return _answer(request, document, str(refused), True, changed=[span_id],
                       confirm=_confirmable(request, refused))  # fmt: skip
    except DomainError as refused:
        return _answer(request, document, str(refused), True, changed=[span_id])
    step = edit.step
    return _answer(request, document, _redrawn(document, step, span_id),
                   changed=step.changed or [span_id], ranges=[step.window],
                   anchor=f"#span-{span_id}", edit=edit)  # fmt: skip


def _redrawn(document: Document, step: Step, span_id: int) -> str:
    """What the page says when an edge moved made the span a new surface with a pseudonym
    of its own: never drawn silently (issue 31, 4). "" otherwise (the same person with a
    title or a particle keeps the pseudonym: annotator.keys.surfaces._join_named)."""
    before, was = step.before.get(span_id), step.pseudonyms.get(span_id)
    if before is None or not was:
        return ""
    span = Span.objects.filter(pk=span_id, document=document).first()
    if span is None or (span.start, span.end) == (before["start"], before["end"]):
        return ""
    choice = span_choices(document, [span]).get(span.pk)
    if choice is None or choice.entity_id == before["entity_id"] or not choice.replacement:
        return ""
    return (
        f"The span now holds another surface, which has a pseudonym of its own: "
        f"{choice.replacement} (it was {was}). Move the edge back (or "
        "press u) to keep the one it had."
    )


@require_POST
@project_page(Can.ANNOTATE)
def span_add(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    """A span the machine missed, from a selection on the page (accepted, source `human`)."""
    document = open_document(request, pk)
    form = SpanAddForm(request.POST)
    if not form.is_valid():
        return _answer(request, document, form_errors(form), True)
    start, end = form.cleaned_data["start"], form.cleaned_data["end"]
    try:
        with undoable(
            document=document, actor=request.user, action="add", start=start, end=end
        ) as step:
            span = span_create(
                document=document,
                actor=request.user,
                start=start,
                end=end,
                label=form.cleaned_data["label"],
                confirm=form.cleaned_data["confirm"],
            )
            step.also(span.pk)
    except NeedsConfirmation as refused:
        return _answer(
            request, document, str(refused), True, confirm=_confirmable(request, refused)
        )
    except DomainError as refused:
        return _answer(request, document, str(refused), True)
    return _answer(
        request, document, changed=step.changed, ranges=[step.window],
        anchor=f"#span-{span.pk}",
    )  # fmt: skip


@require_POST
@project_page(Can.ANNOTATE)
def spans_bulk(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    """Accept every proposal of a label, or reject every proposal of a source."""
    document = open_document(request, pk)
    form = BulkForm(request.POST)
    if not form.is_valid():
        return _answer(request, document, form_errors(form), True)
    status = form.cleaned_data["status"]
    with undoable(
        document=document, actor=request.user, action=f"bulk-{status}", start=0,
        end=len(document.text),
    ) as step:  # fmt: skip
        outcome = spans_decide_all(
            document=document,
            actor=request.user,
            status=status,
            label=form.cleaned_data["label"] or None,
            source=form.cleaned_data["source"] or None,
        )
    verb = "accepted" if status == SpanStatus.ACCEPTED else "rejected"
    notice = f"{outcome.changed} proposal{'s' if outcome.changed != 1 else ''} {verb}."
    if outcome.conflicts:
        notice += (
            f" {outcome.conflicts} left: their surface is decided otherwise in the project,"
            " or they overlap a decided span; decide them one by one."
        )
    return _answer(request, document, notice, bool(outcome.conflicts), changed=step.changed)


@require_POST
@project_page(Can.ANNOTATE)
def span_undo(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    """Take back the last action on this document from this session, unless a span it
    changed has changed again since (then nothing moves, and the notice says so)."""
    document = open_document(request, pk)
    undone = undo_last(document=document, actor=request.user)
    if undone is None:
        return _answer(request, document, "Nothing to undo on this document.", True)
    if undone.refused:
        return _answer(request, document, undone.refused, True, changed=undone.span_ids,
                       ranges=undone.ranges)  # fmt: skip
    return _answer(request, document, f"Undone: {undone.what}.", changed=undone.span_ids,
                   ranges=undone.ranges)  # fmt: skip


def _gone(request: HtmxProjectRequest, document: Document, span_id: int) -> HttpResponse:
    """The answer to a read of a span that is no longer in the document: for htmx, whatever
    the request meant to fill, the patch that removes its row and says so; else a 404."""
    if not request.htmx:
        raise Http404(GONE)
    response = render_patch(
        request, document, changed=[span_id], ranges=[], notice=GONE, error=True,
        undo=undo_label(document, request.user),
    )  # fmt: skip
    response["HX-Retarget"] = "#workspace-patch"
    response["HX-Reswap"] = "innerHTML"
    return response


@project_page(Can.ANNOTATE)
def span_editor(request: HtmxProjectRequest, pk: int, span_id: int) -> HttpResponse:
    """One span's editor (label, decision and pseudonym with suggestions, a flag), loaded
    when asked for: the page itself stays light however many spans it holds."""
    document = open_document(request, pk)
    span = Span.objects.filter(document=document, pk=span_id).first()
    if span is None:
        return _gone(request, document, span_id)
    choice = span_choices(document, [span]).get(span.pk)
    surface = document.text[span.start : span.end]
    return render(
        request,
        "annotator/_span_editor.html",
        {
            "project": request.project,
            "document": document,
            "span": span,
            "surface": surface,
            "colour": label_colour(request.project.labels, span.label),
            "labels": request.project.labels,
            "decisions": DECISION_CHOICES,
            "replacement": choice.replacement if choice else "",
            "moves": EDGE_MOVES,
            "suggestions": pseudonym_suggestions(
                document, surface, span.label, count=SUGGESTION_KEYS
            ),
        },
    )


@project_page(Can.ANNOTATE)
def span_suggestions(request: HtmxProjectRequest, pk: int, span_id: int) -> HttpResponse:
    """Up to five pseudonyms for the span's surface (the one already chosen first), each a
    button that saves it as the span's pseudonym: the fragment `s` then 1-5 picks from."""
    document = open_document(request, pk)
    span = Span.objects.filter(document=document, pk=span_id).first()
    if span is None:
        return _gone(request, document, span_id)
    surface = document.text[span.start : span.end]
    suggestions = pseudonym_suggestions(document, surface, span.label, count=SUGGESTION_KEYS)
    return render(
        request,
        "annotator/_span_suggestions.html",
        {"project": request.project, "document": document, "span": span,
         "suggestions": suggestions},
    )  # fmt: skip


def snippet(text: str, limit: int = SNIPPET_CHARACTERS) -> str:
    """`text` cut to `limit` characters as a reader counts them, never inside one (an
    emoji with its modifier, a letter with its mark), with an ellipsis where it was cut."""
    starts = character_starts(text)
    if len(starts) - 1 <= limit:
        return text
    return text[: starts[limit]].rstrip() + "…"


def undecided_notice(left: Sequence[Undecided]) -> SafeString:
    """Why a document cannot be done, naming the proposals left (up to 21 read) by their
    text, each a link to its row."""
    total = len(left)
    shown = left[:NAMED_PROPOSALS]
    links = format_html_join(
        ", ",
        '<a href="#span-{}"><q dir="auto">{}</q></a>',
        ((proposal.pk, snippet(proposal.surface)) for proposal in shown),
    )
    rest = total - len(shown)
    more = "" if rest <= 0 else (" and more" if total > 20 else f" and {rest} more")
    return format_html(
        "Not done yet: {} still undecided: {}{}. Accept or reject {} first.",
        "over 20 proposals are" if total > 20 else f"{total} proposal{pluralize(total)} "
        f"{'is' if total == 1 else 'are'}",
        links, more, "it" if total == 1 else "them",
    )  # fmt: skip


@require_POST
@project_page(Can.ANNOTATE)
def document_done(request: ProjectRequest, pk: int) -> HttpResponse:
    """Mark the document done (no proposal left), then on to the next of one's queue."""
    document = open_document(request, pk)
    slug = request.project.slug
    try:
        document_status_set(document=document, actor=request.user, status=DocumentStatus.DONE)
    except DomainError as refused:
        left = undecided_proposals(document)
        if not left:
            messages.error(request, str(refused))
            return redirect("document_detail", slug, document.pk)
        # The proposals that block it by their text, and the page opens on the first.
        messages.error(request, undecided_notice(left))
        url = reverse("document_detail", args=[slug, document.pk])
        return redirect(f"{url}#span-{left[0].pk}")
    following = next_document(request.user, request.project, after=document.pk)
    if following is None:
        messages.success(request, "Done. Nothing is left in your queue for this project.")
        return redirect("project_detail", slug)
    messages.success(request, f"{document.external_id} is done.")
    return redirect("document_detail", slug, following.pk)
