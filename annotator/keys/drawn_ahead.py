"""Pseudonyms drawn ahead of the decisions that will take them (`DrawnAhead`).

Drawing a pseudonym in the annotator's request costs a third of a new surface's decision:
the generator, its checks against the table, the check against the documents. The worker
draws ahead, for the proposals of a document someone opened, the very pseudonym the decision
would draw (`surfaces.surfaces_draw_ahead`); the decision takes it with one statement that
locks and deletes its row (`drawn_ahead_take`), checks what may have changed since (an
original it now holds, a document it now occurs in, another surface that took it meanwhile),
and only then draws itself. So drawing ahead changes when a pseudonym is drawn, never which.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from django.db import connections

from annotator.keys.models import DrawnAhead
from annotator.keys.scope import Scope
from annotator.routers import keys_alias


def drawn_ahead_take(scope: Scope, digest: str, label: str, language: str) -> str | None:
    """The pseudonym drawn ahead for the surface of `digest` as a `label` of `language`,
    taken (its row deleted, in the caller's transaction); None when none was drawn."""
    database = keys_alias()
    table = connections[database].ops.quote_name(DrawnAhead._meta.db_table)
    with connections[database].cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} WHERE project_id = %s AND original_digest = %s "
            "AND label = %s AND language = %s RETURNING replacement",
            [scope.pk, digest, label, language],
        )
        row = cursor.fetchone()
    return None if row is None else str(row[0])


def drawn_ahead_known(scope: Scope, digests: Collection[str]) -> set[tuple[str, str, str]]:
    """(digest, label, language) of what is drawn ahead already among `digests`."""
    rows = DrawnAhead.objects.using(keys_alias()).filter(
        project_id=scope.pk, original_digest__in=list(digests)
    )
    return set(rows.values_list("original_digest", "label", "language"))


def drawn_ahead_store(scope: Scope, drawn: Iterable[tuple[str, str, str, str]]) -> int:
    """Keep (digest, label, language, pseudonym) rows; one drawn meanwhile by another worker
    for the same surface stays as it is (the same draw). How many were sent."""
    rows = [
        DrawnAhead(
            project_id=scope.pk,
            original_digest=digest,
            label=label,
            language=language,
            replacement=pseudonym,
        )
        for digest, label, language, pseudonym in drawn
    ]
    DrawnAhead.objects.using(keys_alias()).bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def drawn_ahead_forget(scope: Scope, digests: Collection[str]) -> int:
    """Forget what was drawn ahead for the surfaces of `digests` (decided meanwhile, and
    not by a draw: kept, deleted, typed, joined to another name)."""
    if not digests:
        return 0
    rows = DrawnAhead.objects.using(keys_alias()).filter(
        project_id=scope.pk, original_digest__in=list(digests)
    )
    deleted, _ = rows.delete()
    return int(deleted)
