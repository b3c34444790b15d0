"""The correspondence table's pages, for leads and admins: browse and search it (htmx live
search), open an entity to edit its decision or pseudonyms, merge, split, link, and the
candidate links with a one-click merge.

Leads and admins both read and edit (a lead "links the same entity across languages"): the
writes need `Can.EDIT_KEYS`, which both roles hold. Every view and search is audited by the
table's reads themselves (`annotator.services.table`); no page is kept by the browser
(`annotator.caching.never_store`).
"""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from annotator.audit import client_ip
from annotator.caching import never_store
from annotator.errors import DomainError, NotFoundError, StaleVersion
from annotator.models import DECISION_CHOICES
from annotator.permissions import Can
from annotator.services.table import (
    DEFAULT_LIMIT,
    EntityChange,
    EntityRow,
    KeyFilters,
    alias_link,
    candidate_pairs_read,
    entity_get,
    entity_merge,
    entity_page,
    entity_shown,
    entity_split,
    entity_update,
    search_recall,
    search_remember,
)
from annotator.views.access import project_page
from annotator.views.forms import language_choices
from annotator.views.nav import HtmxProjectRequest, project_nav
from pseudonymizer.vocabulary import MAX_KEEP_REASON

ENTITIES_PER_PAGE = DEFAULT_LIMIT
VERSION_MAX = 2**31 - 1
# The width of a pseudonym's field on an entity's page, in characters (`pseudonym_size`).
PSEUDONYM_SIZE_MIN = 24
PSEUDONYM_SIZE_MAX = 80


class KeySearchForm(forms.Form):
    q = forms.CharField(
        label="Search",
        required=False,
        max_length=200,
        # An original typed here must not outlive the sign-out in the browser's autofill
        # database (issue 32): no autocomplete, no spell-check sent to a service.
        widget=forms.TextInput(
            attrs={
                "type": "search",
                "placeholder": "a name, a pseudonym or #id",
                "autocomplete": "off",
                "spellcheck": "false",
            }
        ),
    )
    label = forms.ChoiceField(label="Label", required=False)
    decision = forms.ChoiceField(
        label="Decision", required=False, choices=[("", "Any decision"), *DECISION_CHOICES]
    )
    language = forms.ChoiceField(label="Language", required=False)

    def __init__(self, *args: Any, labels: list[str], languages: list[str], **kwargs: Any):
        super().__init__(*args, **kwargs)
        label = cast(forms.ChoiceField, self.fields["label"])
        label.choices = [("", "Any label"), *((name, name) for name in labels)]
        language = cast(forms.ChoiceField, self.fields["language"])
        language.choices = [("", "Any language"), *language_choices(languages)]

    def filters(self) -> KeyFilters:
        data = self.cleaned_data if self.is_valid() else {}
        return KeyFilters(
            label=data.get("label", ""),
            decision=data.get("decision", ""),
            language=data.get("language", ""),
            q=data.get("q", ""),
        )


def pseudonym_size(replacement: str) -> int:
    """The width, in characters, of a pseudonym's field: the whole pseudonym and a little
    room to edit it (the page cut "paper.maker@example.org" to "paper.ma")."""
    return min(PSEUDONYM_SIZE_MAX, max(PSEUDONYM_SIZE_MIN, len(replacement) + 4))


class EntityEditForm(forms.Form):
    version = forms.IntegerField(min_value=1, max_value=VERSION_MAX, widget=forms.HiddenInput)
    decision = forms.ChoiceField(label="Decision", choices=DECISION_CHOICES)
    keep_reason = forms.CharField(
        label="Why it is kept", required=False, max_length=MAX_KEEP_REASON
    )

    def __init__(self, *args: Any, row: EntityRow, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.row = row
        for alias in row.aliases:
            self.fields[f"replacement_{alias.id}"] = forms.CharField(
                label=f"Pseudonym of alias {alias.id}",
                required=False,
                max_length=500,
                initial=alias.replacement,
                widget=forms.TextInput(attrs={"size": pseudonym_size(alias.replacement)}),
            )

    def alias_fields(self) -> list[tuple[Any, forms.BoundField]]:
        return [(alias, self[f"replacement_{alias.id}"]) for alias in self.row.aliases]

    def change(self) -> EntityChange:
        data = self.cleaned_data
        replacements = {
            alias.id: data[f"replacement_{alias.id}"]
            for alias in self.row.aliases
            if data[f"replacement_{alias.id}"] != alias.replacement
        }
        decision = data["decision"]
        return EntityChange(
            decision=decision,
            keep_reason=data["keep_reason"],
            # A kept or deleted entity has no pseudonyms: their fields are left out.
            replacements=replacements if decision in ("pseudonymize", "invalidate") else {},
        )


class MergeForm(forms.Form):
    other = forms.IntegerField(label="Entity to merge into this one (#id)", min_value=1)
    version = forms.IntegerField(min_value=1, max_value=VERSION_MAX, widget=forms.HiddenInput)
    other_version = forms.IntegerField(
        min_value=1, max_value=VERSION_MAX, required=False, widget=forms.HiddenInput
    )
    decision = forms.ChoiceField(
        label="Decision of the merged entity",
        required=False,
        choices=[("", "Theirs, when they agree"), *DECISION_CHOICES],
    )
    keep_reason = forms.CharField(
        label="Why it is kept", required=False, max_length=MAX_KEEP_REASON
    )


class SplitForm(forms.Form):
    version = forms.IntegerField(min_value=1, max_value=VERSION_MAX, widget=forms.HiddenInput)
    aliases = forms.TypedMultipleChoiceField(coerce=int, label="Aliases to move")

    def __init__(self, *args: Any, row: EntityRow, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        aliases = cast(forms.TypedMultipleChoiceField, self.fields["aliases"])
        # Every alias, the words cut from a longer name too: one may be another person's.
        aliases.choices = [
            (alias.id, f"{alias.language}: {alias.original}"
             + (" (a word of a longer name)" if alias.token else ""))
            for alias in row.aliases
        ]  # fmt: skip


class LinkForm(forms.Form):
    alias = forms.IntegerField(label="Alias of another entity to link here (id)", min_value=1)
    version = forms.IntegerField(min_value=1, max_value=VERSION_MAX, widget=forms.HiddenInput)


# --- The table ------------------------------------------------------------------------------


# A search names a person: the page posts it, keeps it in the session (sealed, as the
# originals are: `search_remember`) and puts only a token in the address, so that no name
# reaches the address bar, the browser's history, a Referer or a proxy's access log.
FILTER_FIELDS = ("label", "decision", "language")


def _address(filters: dict[str, str], token: str) -> str:
    """The list's query string for `filters` and a search token: never the query itself."""
    params = {name: filters[name] for name in FILTER_FIELDS if filters.get(name)}
    if token:
        params["search"] = token
    return urlencode(params)


@project_page(Can.READ_KEYS)
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request", "HX-Target")
def key_list(request: HtmxProjectRequest) -> HttpResponse:
    project = request.project
    token, expired = "", False
    data: QueryDict = request.POST if request.method == "POST" else request.GET
    if request.method == "GET" and request.GET.get("search"):
        token = request.GET["search"]
        query = search_recall(request.session, token)
        expired = query is None
        data = request.GET.copy()
        data["q"] = query or ""
    form = KeySearchForm(data or None, labels=project.labels, languages=project.languages)
    filters = form.filters()
    typed = request.method == "GET" and not token and bool(request.GET.get("q"))
    # The query as its field cleaned it, even when another field (a label) is refused.
    searched: str = form.cleaned_data.get("q", "") if form.is_bound else ""
    if request.method == "POST" or typed:
        # A new query (posted, or typed in the address): a token from now on.
        token = search_remember(request.session, searched) if searched else ""
    address = f"{reverse('key_list', args=[project.slug])}?{_address(data, token)}"
    if typed and not searched:
        # Refused (too long): the address loses it all the same, and the page says why.
        for message in form.errors.get("q", []):
            messages.error(request, f"Search: {message}")
    if (request.method == "POST" and not request.htmx) or typed:
        # A query in an address stays in the history, a Referer and a proxy's log: the
        # results are shown at the token's address instead, as after the form (htmx follows
        # the redirect with its headers, and gets the table alone).
        see_other = HttpResponseRedirect(address)
        see_other.status_code = 303  # the results are read with a GET
        return see_other
    asked = request.GET.get("page", "1")
    number = int(asked) if asked.isdigit() and 0 < int(asked) < 100_000 else 1
    page = entity_page(
        project,
        filters,
        actor=request.user,
        ip_address=client_ip(request),
        offset=(number - 1) * ENTITIES_PER_PAGE,
        last_if_past=True,  # past the last page: the last one
    )
    rows = page.rows
    context = {
        **project_nav(request),
        "form": form,
        "page": page,
        "rows": rows,
        "filtered": filters.any,
        "address": _address(data, token),
        "expired": expired,
    }
    if request.htmx and not request.htmx.history_restore_request:
        response = render(request, "annotator/key_list.html#key-table", context)
        if request.method == "POST":
            response["HX-Push-Url"] = address
        return never_store(response)
    return never_store(render(request, "annotator/key_list.html", context))


def _entity_page(
    request: HtmxProjectRequest,
    row: EntityRow,
    *,
    status: int = 200,
    edit: EntityEditForm | None = None,
    merge: MergeForm | None = None,
    split: SplitForm | None = None,
    link: LinkForm | None = None,
    error: str = "",
) -> HttpResponse:
    # Every answer that shows the entity is a read of the table by this person, whatever
    # the outcome of an edit that led here (issue 32).
    entity_shown(request.project, row.id, actor=request.user, ip_address=client_ip(request))
    version = {"version": row.version}
    context = {
        **project_nav(request),
        "row": row,
        "edit_form": edit
        or EntityEditForm(
            initial={**version, "decision": row.decision, "keep_reason": row.keep_reason},
            row=row,
        ),
        "merge_form": merge or MergeForm(initial=version, auto_id="merge_%s"),
        "split_form": split or SplitForm(initial=version, row=row, auto_id="split_%s"),
        "link_form": link or LinkForm(initial=version, auto_id="link_%s"),
        "error": error,
    }
    return never_store(render(request, "annotator/key_entity.html", context, status=status))


def _current(request: HtmxProjectRequest, pk: int) -> EntityRow:
    """The entity for a page or an edit's form (`_entity_page` audits what it shows)."""
    try:
        return entity_get(request.project, pk)
    except NotFoundError as missing:
        raise Http404(str(missing)) from None


def _refused(
    request: HtmxProjectRequest, pk: int, error: DomainError, **forms_: Any
) -> HttpResponse:
    """The entity's page again, saying why: 409 with the entity as it is now for a stale
    version, else 400 with the forms as sent (an unknown other entity or alias included)."""
    row = _current(request, pk)
    if isinstance(error, StaleVersion):
        return _entity_page(request, row, status=409, error=str(error))
    return _entity_page(request, row, status=400, error=str(error), **forms_)


@project_page(Can.READ_KEYS)
def _entity_show(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    return _entity_page(request, _current(request, pk))


@project_page(Can.EDIT_KEYS)
def _entity_edit(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    row = _current(request, pk)
    form = EntityEditForm(request.POST, row=row)
    if not form.is_valid():
        return _entity_page(request, row, status=400, edit=form, error="The edit was refused.")
    try:
        entity_update(
            project=request.project,
            entity_id=pk,
            actor=request.user,
            version=form.cleaned_data["version"],
            change=form.change(),
            ip_address=client_ip(request),
        )
    except DomainError as refused:
        return _refused(request, pk, refused, edit=form)
    messages.success(request, f"Entity {pk} saved.")
    return redirect("key_entity", slug=request.project.slug, pk=pk)


@require_http_methods(["GET", "HEAD", "POST"])
def key_entity(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """GET: one entity with its aliases and the forms to change it; POST: save an edit."""
    if request.method == "POST":
        return _entity_edit(request, slug, pk)
    return _entity_show(request, slug, pk)


@project_page(Can.EDIT_KEYS)
@require_POST
def key_merge(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    form = MergeForm(request.POST, auto_id="merge_%s")
    if not form.is_valid():
        return _entity_page(
            request, _current(request, pk), status=400, merge=form, error="Nothing was merged."
        )
    data = form.cleaned_data
    try:
        entity_merge(
            project=request.project,
            entity_id=pk,
            other_id=data["other"],
            actor=request.user,
            version=data["version"],
            other_version=data["other_version"],
            decision=data["decision"] or None,
            keep_reason=data["keep_reason"] or None,
            ip_address=client_ip(request),
        )
    except DomainError as refused:
        return _refused(request, pk, refused, merge=form)
    messages.success(request, f"Entity {data['other']} merged into entity {pk}.")
    return redirect("key_entity", slug=request.project.slug, pk=pk)


@project_page(Can.EDIT_KEYS)
@require_POST
def key_split(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    row = _current(request, pk)
    form = SplitForm(request.POST, row=row, auto_id="split_%s")
    if not form.is_valid():
        return _entity_page(request, row, status=400, split=form, error="Nothing was moved.")
    try:
        _, new = entity_split(
            project=request.project,
            entity_id=pk,
            alias_ids=form.cleaned_data["aliases"],
            actor=request.user,
            version=form.cleaned_data["version"],
            ip_address=client_ip(request),
        )
    except DomainError as refused:
        return _refused(request, pk, refused, split=form)
    messages.success(request, f"The chosen aliases are now entity {new.id}.")
    return redirect("key_entity", slug=request.project.slug, pk=new.id)


@project_page(Can.EDIT_KEYS)
@require_POST
def key_link(request: HtmxProjectRequest, pk: int) -> HttpResponse:
    form = LinkForm(request.POST, auto_id="link_%s")
    if not form.is_valid():
        return _entity_page(
            request, _current(request, pk), status=400, link=form, error="Nothing was linked."
        )
    try:
        alias_link(
            project=request.project,
            entity_id=pk,
            alias_id=form.cleaned_data["alias"],
            actor=request.user,
            version=form.cleaned_data["version"],
            ip_address=client_ip(request),
        )
    except DomainError as refused:
        return _refused(request, pk, refused, link=form)
    messages.success(request, f"Alias {form.cleaned_data['alias']} linked to entity {pk}.")
    return redirect("key_entity", slug=request.project.slug, pk=pk)


@project_page(Can.READ_KEYS)
def key_candidates(request: HtmxProjectRequest) -> HttpResponse:
    project = request.project
    label = request.GET.get("label", "")
    pairs = candidate_pairs_read(
        project,
        actor=request.user,
        label=label if label in project.labels else "",
        ip_address=client_ip(request),
    )
    context = {
        **project_nav(request),
        "pairs": pairs,
        "label": label,
        "decisions": DECISION_CHOICES,
    }
    return never_store(render(request, "annotator/key_candidates.html", context))
