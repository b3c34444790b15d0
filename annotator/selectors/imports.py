"""Reads of a project's import jobs, the same for its overview and its import pages."""

from __future__ import annotations

from django.db.models import QuerySet

from annotator.models import ImportJob, Project


def imports_of(project: Project) -> QuerySet[ImportJob]:
    """The project's import jobs, newest first, with who uploaded each."""
    return ImportJob.objects.filter(project=project).select_related("created_by")
