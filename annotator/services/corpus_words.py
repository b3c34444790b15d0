"""The vocabulary of a project's documents (`CorpusWord`): written by the import that writes
the documents, in its transaction, and by the worker's catch-up for documents written any
other way (before the vocabulary existed, or by a script through the ORM).

An import pays little for it: the pieces of each folded text are taken with `str.split` as
the text is written (the fold is made for `search_text` anyway), and the words they hold
(`pseudonymizer.recognizers.known_words.word_forms`: runs of letters, Arabic words without
their proclitics) are worked out once over the import's distinct pieces, then inserted as
digests in one statement per 50,000.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import connection, transaction

from annotator.models import CorpusWord, Document
from pseudonymizer.recognizers.known_words import text_tokens, word_digest, word_forms

logger = logging.getLogger(__name__)

# Digests sent in one INSERT, and documents read in one step of the catch-up.
INSERT_CHUNK = 50_000
CATCH_UP_CHUNK = 1_000


class WordsCollector:
    """The distinct pieces of the texts an import writes, made words when it finishes."""

    def __init__(self) -> None:
        self.tokens: set[str] = set()

    def add(self, text: str, folded: str) -> None:
        self.tokens.update(text_tokens(text, folded))

    def words(self) -> set[str]:
        return word_forms(self.tokens)


def corpus_words_add(project_id: int, words: Iterable[str]) -> int:
    """Add `words` to the project's vocabulary (those it holds already are left); how many
    digests were sent. In the caller's transaction."""
    digests = sorted({word_digest(word) for word in words})
    for start in range(0, len(digests), INSERT_CHUNK):
        chunk = digests[start : start + INSERT_CHUNK]
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    f"INSERT INTO {CorpusWord._meta.db_table} (project_id, digest) "
                    "SELECT %s, unnest(%s::bigint[]) ON CONFLICT DO NOTHING",
                    [project_id, chunk],
                )
        else:
            CorpusWord.objects.bulk_create(
                [CorpusWord(project_id=project_id, digest=digest) for digest in chunk],
                ignore_conflicts=True,
                batch_size=500,
            )
    return len(digests)


def corpus_words_catch_up(*, project_id: int | None = None, limit: int | None = None) -> int:
    """Add the words of the original documents the vocabulary does not hold yet (of one
    project, or of all), `CATCH_UP_CHUNK` documents per transaction, and mark them; how many
    documents were done. Two workers never do the same document (SKIP LOCKED)."""
    done = 0
    while limit is None or done < limit:
        step = CATCH_UP_CHUNK if limit is None else min(CATCH_UP_CHUNK, limit - done)
        with transaction.atomic():
            pending = Document.objects.filter(words_indexed=False, replica_of__isnull=True)
            if project_id is not None:
                pending = pending.filter(project_id=project_id)
            if connection.features.has_select_for_update_skip_locked:
                pending = pending.select_for_update(skip_locked=True, of=("self",))
            columns = ("pk", "project_id", "text", "search_text")
            rows = list(pending.order_by("pk").values_list(*columns)[:step])
            if not rows:
                break
            by_project: dict[int, WordsCollector] = {}
            for _, project, text, folded in rows:
                by_project.setdefault(project, WordsCollector()).add(text, folded)
            for project, collector in by_project.items():
                corpus_words_add(project, collector.words())
            Document.objects.filter(pk__in=[row[0] for row in rows]).update(words_indexed=True)
        done += len(rows)
    if done:
        logger.info("the vocabulary took in the words of %s documents", done)
    if done >= CATCH_UP_CHUNK and connection.vendor == "postgresql":
        _statistics_renew()
    return done


def _statistics_renew() -> None:
    """Gather the document table's statistics again, as autovacuum would a minute later:
    until then the planner takes most documents for ones the vocabulary does not hold, and
    scans the table where the partial index of the few it does not hold would do. Only the
    table's owner may; another role's request is skipped with a warning."""
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Document._meta.db_table}")
