"""Key export and import on the pages (admins: Can.EXPORT_KEYS); the work and the audit are
`annotator.services.table`'s.

An export answers with the encrypted key file as a download; an import shows what it added,
or why nothing was (a wrong passphrase, a file that breaks the rules, conflicts with the
project's table, by row of the file). Neither page is ever cached, and neither shows an
original: a conflict names its row in the file, its entity number, language and label.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from annotator.audit import client_ip
from annotator.caching import never_store
from annotator.errors import DomainError
from annotator.permissions import Can
from annotator.services.table import (
    FILE_CONTENT_TYPE,
    MAX_FILE_BYTES,
    MIN_PASSPHRASE,
    ImportConflicts,
    export_filename,
    keys_export,
    keys_import,
)
from annotator.views.access import project_page
from annotator.views.nav import HtmxProjectRequest, project_nav


class KeyExportForm(forms.Form):
    passphrase = forms.CharField(
        label="Passphrase",
        min_length=MIN_PASSPHRASE,
        max_length=1024,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=f"At least {MIN_PASSPHRASE} characters. Whoever has the file and this "
        "passphrase reads every original of the project: keep them apart.",
    )
    confirm = forms.CharField(
        label="The passphrase again",
        max_length=1024,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        passphrase, confirm = data.get("passphrase"), data.get("confirm")
        if passphrase and confirm is not None and passphrase != confirm:
            self.add_error("confirm", "The two passphrases differ.")
        return data


class KeyImportForm(forms.Form):
    file = forms.FileField(label="Key file", help_text="A file exported by Cloak or its CLI.")
    passphrase = forms.CharField(
        label="Its passphrase",
        max_length=1024,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > MAX_FILE_BYTES:
            raise forms.ValidationError("This file is too large to be a key file.")
        return upload


def _export_page(request: HtmxProjectRequest, form: KeyExportForm, status: int) -> HttpResponse:
    context = {**project_nav(request), "form": form}
    return never_store(
        render(request, "annotator/key_transfer_export.html", context, status=status)
    )


@require_http_methods(["GET", "HEAD", "POST"])
@project_page(Can.EXPORT_KEYS)
def key_export(request: HtmxProjectRequest) -> HttpResponse:
    """GET: the form; POST: the project's key file, encrypted under the passphrase."""
    if request.method != "POST":
        return _export_page(request, KeyExportForm(), 200)
    form = KeyExportForm(request.POST)
    if not form.is_valid():
        return _export_page(request, form, 400)
    project = request.project
    try:
        data, _ = keys_export(
            project=project,
            passphrase=form.cleaned_data["passphrase"],
            actor=request.user,
            ip_address=client_ip(request),
        )
    except DomainError as error:
        form.add_error(None, str(error))
        return _export_page(request, form, 400)
    response = HttpResponse(data, content_type=FILE_CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{export_filename(project)}"'
    return never_store(response)


def _import_page(
    request: HtmxProjectRequest, form: KeyImportForm, status: int, **extra: Any
) -> HttpResponse:
    context = {**project_nav(request), "form": form, **extra}
    return never_store(
        render(request, "annotator/key_transfer_import.html", context, status=status)
    )


@require_http_methods(["GET", "HEAD", "POST"])
@project_page(Can.EXPORT_KEYS)
def key_import(request: HtmxProjectRequest) -> HttpResponse:
    """GET: the form; POST: import the uploaded key file, all or nothing."""
    if request.method != "POST":
        return _import_page(request, KeyImportForm(), 200)
    form = KeyImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _import_page(request, form, 400)
    try:
        counts = keys_import(
            project=request.project,
            data=form.cleaned_data["file"].read(),
            passphrase=form.cleaned_data["passphrase"],
            actor=request.user,
            ip_address=client_ip(request),
        )
    except ImportConflicts as error:
        return _import_page(
            request,
            KeyImportForm(),
            409,
            refused=str(error),
            counts=error.counts,
            conflicts=error.conflicts,
        )
    except DomainError as error:
        form.add_error(None, str(error))
        return _import_page(request, form, 400)
    return _import_page(request, KeyImportForm(), 200, counts=counts)
