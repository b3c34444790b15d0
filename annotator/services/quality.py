"""Keeping the quality page's numbers: in the cache per state of the data they read, and
computed in the background after documents are finished, so that a lead seldom waits for them
(the scoring takes seconds on a large project). `annotator.selectors.quality` reads and scores;
what is kept, for how long and under which key, is decided here."""

from __future__ import annotations

from django.core.cache import cache

from annotator.models import Project
from annotator.selectors.quality import (
    Agreement,
    Preannotation,
    PreannotationCounts,
    Quality,
    RunScope,
    agreement_of,
    agreement_pairs,
    digest,
    preannotation_blocks,
    preannotation_counts,
    preannotation_of,
    quality_state,
)
from annotator.services.jobs import task_send_on_commit
from annotator.services.span_events import Decided

# A burst of documents finished is scored once, this long after the first of them.
WARM_AFTER_SECONDS = 60
# How long computed numbers are kept for one state of the project's data.
QUALITY_CACHE_SECONDS = 3600
# How long the parts they are made of are kept (a block of documents, the pairs).
BLOCK_CACHE_SECONDS = 24 * 3600


def project_quality(
    project: Project, *, language: str | None = None, run: RunScope = None
) -> Quality:
    """Everything the quality page and its endpoint show: computed once for a state of the
    project's spans and documents, then served from the cache until either changes (the
    state takes tens of milliseconds). When they change, only what changed is scored again:
    the blocks of documents whose spans changed in what the scores read, and the pairs when
    theirs did (scoring everything takes seconds on a large project)."""
    key = f"cloak:quality:v4:{project.pk}:{language or ''}:{run or ''}:{quality_state(project)}"
    cached = cache.get(key)
    if isinstance(cached, Quality):
        return cached
    measured = Quality(
        language=language,
        run=run,
        agreement=_kept_agreement(project, language=language),
        preannotation=_kept_preannotation(project, language=language, run=run),
    )
    cache.set(key, measured, timeout=QUALITY_CACHE_SECONDS)
    return measured


def _kept_preannotation(
    project: Project, *, language: str | None = None, run: RunScope = None
) -> Preannotation:
    """`preannotation_quality`, each block of documents scored once for a state of them."""
    blocks = {
        f"cloak:quality:block:v3:{project.pk}:{run or ''}:{block.index}:{block.state}": block
        for block in preannotation_blocks(project, run=run)
    }
    kept = cache.get_many(list(blocks))
    counts: list[PreannotationCounts] = []
    fresh: dict[str, PreannotationCounts] = {}
    for key, block in blocks.items():
        part = kept.get(key)
        if not isinstance(part, PreannotationCounts):
            part = fresh[key] = preannotation_counts(project, block, run=run)
        counts.append(part)
    if fresh:
        cache.set_many(fresh, timeout=BLOCK_CACHE_SECONDS)
    return preannotation_of(counts, language=language, run=run)


def _kept_agreement(project: Project, *, language: str | None = None) -> Agreement:
    """`agreement`, computed once for a state of the pairs: their documents, and the final
    spans of both sides (what the numbers read; a lead's decision on a span is not)."""
    pairs = agreement_pairs(project, language=language)
    key = f"cloak:quality:agreement:v1:{project.pk}:{language or ''}:{digest(pairs)}"
    kept = cache.get(key)
    if isinstance(kept, Agreement):
        return kept
    measured = agreement_of(pairs)
    cache.set(key, measured, timeout=BLOCK_CACHE_SECONDS)
    return measured


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
