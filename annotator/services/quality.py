"""Keeping the quality page's numbers ready: computed in the background after documents are
finished, so that a lead seldom waits for them (the scoring takes seconds on a large project;
`annotator.selectors.quality` caches it per state of the data)."""

from __future__ import annotations

from django.core.cache import cache
from django.db import transaction

from annotator.models import Project
from annotator.selectors.quality import project_quality

# A burst of documents finished is scored once, this long after the first of them.
WARM_AFTER_SECONDS = 60


def quality_warm_request(project: Project) -> bool:
    """Queue one computation of the project's numbers, unless one is already waiting; True
    when this call queued it. Runs after the caller's transaction commits."""
    if not cache.add(f"cloak:quality-warm:{project.pk}", 1, timeout=WARM_AFTER_SECONDS):
        return False
    from annotator import tasks

    project_id = project.pk
    transaction.on_commit(
        lambda: tasks.quality_warm.apply_async(args=[project_id], countdown=WARM_AFTER_SECONDS)
    )
    return True


def quality_warm(project_id: int) -> bool:
    """Compute the numbers the quality page opens with (every language, every run) into the
    cache; False when the project is gone."""
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        return False
    project_quality(project)
    return True
