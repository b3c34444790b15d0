"""The audit log on the pages: admins read and filter it, and download it as CSV.

Reading the log is audited where the log leaves the application: a CSV download records an
AUDIT_READ event with its filters. Looking at the page is not: it is for admins only, and an
event for every page, filter and pager click would fill the log with reports of itself,
drowning the events it is there to show (and each read would change what the next shows).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import Any, cast

from django import forms
from django.core.paginator import Paginator
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from annotator.audit import audit_record, client_ip
from annotator.caching import never_store
from annotator.models import AuditAction
from annotator.permissions import Can
from annotator.selectors.audit import (
    AuditFilter,
    audit_csv_rows,
    audit_events,
    audit_rows,
)
from annotator.views.access import project_page
from annotator.views.forms import form_errors
from annotator.views.nav import HtmxProjectRequest, project_nav

PAGE_SIZE = 50


class AuditFilterForm(forms.Form):
    action = forms.MultipleChoiceField(
        label="Actions",
        choices=AuditAction.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    actor = forms.CharField(label="Who (username)", required=False, max_length=150)
    since = forms.DateField(
        label="From", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label="To", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    target = forms.CharField(label="Target contains", required=False, max_length=200)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            raise forms.ValidationError("“From” must not come after “To”.")
        return data

    def filters(self) -> AuditFilter:
        """The valid filters (a refused form filters nothing rather than the wrong thing)."""
        if not self.is_valid():
            return AuditFilter()
        data = self.cleaned_data
        return AuditFilter(
            actions=tuple(data["action"]),
            actor=data["actor"].strip(),
            since=data["since"],
            until=data["until"],
            target=data["target"].strip(),
        )


@require_safe
@project_page(Can.VIEW_AUDIT)
def audit_list(request: HtmxProjectRequest) -> HttpResponse:
    """The project's audit log, newest first, filtered and paged."""
    form = AuditFilterForm(request.GET or None)
    filters = form.filters()
    page = Paginator(audit_events(request.project, filters), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    context = {
        **project_nav(request),
        "form": form,
        "page": page,
        "rows": audit_rows(page.object_list),
        "filtered": filters.active,
        "query": request.GET.urlencode(),
    }
    status = 400 if form.is_bound and not form.is_valid() else 200
    return never_store(render(request, "annotator/audit_list.html", context, status=status))


class _Echo:
    """A file-like object whose write returns the line, for csv.writer in a stream."""

    def write(self, value: str) -> str:
        return value


@require_safe
@project_page(Can.VIEW_AUDIT)
def audit_export(request: HtmxProjectRequest) -> HttpResponse:
    """The filtered log as CSV (UTF-8), streamed; the download is itself audited."""
    form = AuditFilterForm(request.GET or None)
    if form.is_bound and not form.is_valid():
        return HttpResponse(
            f"Invalid filters: {form_errors(form)}",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    filters = form.filters()
    project = request.project
    audit_record(
        action=AuditAction.AUDIT_READ,
        actor=request.user,
        project=project,
        target=f"project:{project.slug}",
        detail={"format": "csv", "filters": filters.as_detail()},
        ip_address=client_ip(request),
    )
    writer = csv.writer(_Echo())

    def lines() -> Iterator[str]:
        yield "\ufeff"  # so that a spreadsheet reads the file as UTF-8
        for row in audit_csv_rows(audit_events(project, filters)):
            yield writer.writerow(row)

    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{project.slug}-audit-{stamp}.csv"'
    never_store(response)
    # Pages are typed as answering an HttpResponse; Django serves a streamed one alike.
    return cast(HttpResponse, response)
