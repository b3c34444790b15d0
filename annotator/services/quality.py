"""Keeping the quality page's numbers ready: computed in the background after documents are
finished, so that a lead seldom waits for them (the scoring takes seconds on a large project;
`annotator.selectors.quality` caches it per state of the data)."""

from __future__ import annotations

from django.core.cache import cache

from annotator.models import Project
from annotator.selectors.quality import project_quality
from annotator.services.jobs import task_send_on_commit
from annotator.services.span_events import Decided

# A burst of documents finished is scored once, this long after the first of them.
WARM_AFTER_SECONDS = 60


def quality_warm_request(project: Project) -> bool:
    """Queue one computation of the project's numbers, unless one is already waiting; True
    when this call queued it. Runs after the caller's transaction commits."""
    if not cache.add(f"cloak:quality-warm:{project.pk}", 1, timeout=WARM_AFTER_SECONDS):
        return False
    task_send_on_commit("quality_warm", project.pk, countdown=WARM_AFTER_SECONDS)
    return True


def document_done(event: Decided) -> None:
    """A document marked done is new gold, or a pair to agree on: the numbers change
    (`annotator.services.after_decision`)."""
    if event.done:
        quality_warm_request(event.project)


def quality_warm(project_id: int) -> bool:
    """Compute the numbers the quality page opens with (every language, every run) into the
    cache; False when the project is gone."""
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        return False
    project_quality(project)
    return True
