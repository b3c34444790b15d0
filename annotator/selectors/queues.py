"""Work queues: the documents each person holds, by status, and the next one to do."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q

from annotator.models import Document, DocumentStatus, Project

FINISHED = (DocumentStatus.DONE, DocumentStatus.REVIEWED)


@dataclass
class Queue:
    """One person's documents in one project (`assignee` None: those nobody holds)."""

    assignee: str | None
    counts: dict[str, int] = field(default_factory=dict)  # status → documents

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def finished(self) -> int:
        return sum(self.counts.get(status, 0) for status in FINISHED)

    @property
    def to_do(self) -> int:
        return self.total - self.finished

    @property
    def percent(self) -> int:
        return round(100 * self.finished / self.total) if self.total else 0

    @property
    def pending(self) -> list[tuple[str, int]]:
        """(label, documents) of each status still to work on that holds any."""
        return [
            (s.label, self.counts[s.value])
            for s in DocumentStatus
            if s not in FINISHED and self.counts.get(s.value)
        ]

    @property
    def by_status(self) -> list[tuple[str, str, int]]:
        """(status, label, documents) for every status, in the workflow's order."""
        return [(s.value, s.label, self.counts.get(s.value, 0)) for s in DocumentStatus]


def queues_of(projects: Iterable[Project], user: Any) -> dict[int, Queue]:
    """`user`'s queue in each of `projects`, by project id, in one grouped query (the
    replicas given to `user` for double annotation among them)."""
    ids = [project.pk for project in projects]
    queues: dict[int, Queue] = {pk: Queue(user.username) for pk in ids}
    rows = (
        Document.objects.filter(project_id__in=ids, assignee=user)
        .values_list("project_id", "status")
        .annotate(n=Count("id"))
        .order_by()
    )
    for project_id, status, n in rows:
        queues[project_id].counts[status] = n
    return queues


def project_queues(project: Project) -> list[Queue]:
    """Every queue of `project`: each assignee's (by name), then the documents nobody holds.

    A replica counts in its second annotator's queue only: one nobody holds (its annotator
    left) is not work for anyone else."""
    grouped: dict[str | None, Queue] = defaultdict(lambda: Queue(None))
    rows = (
        Document.objects.filter(project=project)
        .filter(Q(replica_of__isnull=True) | Q(assignee__isnull=False))
        .values_list("assignee__username", "status")
        .annotate(n=Count("id"))
        .order_by()
    )
    for username, status, n in rows:
        queue = grouped[username]
        queue.assignee = username
        queue.counts[status] = n
    named = sorted(
        (q for name, q in grouped.items() if name is not None), key=lambda q: q.assignee or ""
    )
    return named + ([grouped[None]] if None in grouped else [])


def next_document(user: Any, project: Project, *, after: int | None = None) -> Document | None:
    """The next document `user` holds that is not done, in id order: the first after
    `after` when there is one, else the first of the queue."""
    undone = (
        Document.objects.filter(project=project, assignee=user)
        .exclude(status__in=FINISHED)
        .only("id", "project_id")
        .order_by("id")
    )
    if after is not None:
        following = undone.filter(pk__gt=after).first()
        if following is not None:
            return following
    return undone.first()
