"""Which documents of a project hold a folded surface: the narrowing before the known-entity
matcher reads a document (propagation, and the rule that a pseudonym is no original).

`Document.search_text` holds each text folded as the matcher folds it, so a surface the matcher
can find in a document is a substring of its search text (`pseudonymizer.folding.fold_key`).
For a few keys the database tests the substrings (`LIKE`, one scan of the table); for many it
would test each key against each row (a pass of 1,000 keys over 100,000 documents took 100 s,
a regular expression of them longer still), so the search texts are streamed once and an
Aho-Corasick automaton tests every key in one pass over each, whatever their number.

Whether a pseudonym occurs in any document (`in_corpus`) asks the project's vocabulary first
(`CorpusWord`, `pseudonymizer.recognizers.known_words`): a surface with a word no document
offers is in none of those documents, and only the few documents whose words the vocabulary
does not hold yet are read. Only a surface whose every word occurs somewhere costs the scan.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from typing import Any

from django.db.models import Q

from annotator.models import CorpusWord, Document
from pseudonymizer.folding import fold_key
from pseudonymizer.recognizers.known import KnownEntityRecognizer
from pseudonymizer.recognizers.known_words import surface_words, word_digest

# Up to this many keys, the database's substring tests cost less than reading the search
# texts out of it (bench/propagation_bench.py measures both).
FEW_KEYS = 4
CHUNK = 2000
# Documents whose text `in_corpus` reads at once.
IN_CORPUS_PAGE = 100


def documents_holding(
    project_id: int,
    keys: Collection[str],
    *,
    within: Collection[int] | None = None,
) -> Iterator[int]:
    """The ids, in order, of the project's original documents (never a replica) whose search
    text holds one of `keys` (folded surfaces), among `within` when given."""
    documents = Document.objects.filter(project_id=project_id).originals()
    if within is not None:
        documents = documents.filter(pk__in=list(within))
    if not keys:
        return
    automaton = _automaton(keys) if len(keys) > FEW_KEYS else None
    if automaton is None:
        query = Q()
        for key in keys:
            query |= Q(search_text__contains=key)
        ids = documents.filter(query).order_by("pk").values_list("pk", flat=True)
        yield from ids.iterator(chunk_size=CHUNK)
        return
    rows = documents.order_by("pk").values_list("pk", "search_text")
    for document_id, search_text in rows.iterator(chunk_size=CHUNK):
        if next(automaton.iter(search_text), None) is not None:
            yield document_id


def _automaton(keys: Collection[str]) -> Any:
    try:
        import ahocorasick
    except ImportError:  # without the ml extra: the database tests them all
        return None
    automaton = ahocorasick.Automaton()
    for key in keys:
        automaton.add_word(key, None)
    automaton.make_automaton()
    return automaton


def in_chunks(ids: Iterable[int], size: int) -> Iterator[list[int]]:
    """`ids` in lists of `size` (the last shorter), as they come."""
    chunk: list[int] = []
    for one in ids:
        chunk.append(one)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def vocabulary_may_hold(project_id: int, surface: str) -> bool:
    """Whether every word `surface` needs (`surface_words`) is in the project's vocabulary:
    False means no document whose words it holds can hold the surface. One query."""
    needed = surface_words(surface)
    if needed is None:
        return False
    if not needed:
        return True  # no word to look up: punctuation only
    digests = {form: word_digest(form) for forms in needed for form in forms}
    found = set(
        CorpusWord.objects.filter(
            project_id=project_id, digest__in=set(digests.values())
        ).values_list("digest", flat=True)
    )
    return all(any(digests[form] in found for form in forms) for forms in needed)


def in_corpus(project_id: int, replacement: str) -> bool:
    """Whether `replacement` occurs in a document of the project where the known-entity
    recognizer would find it (case, accents, Arabic variants and proclitics as it reads
    them). The vocabulary says whether the documents whose words it holds may (see the
    module's docstring); the database narrows the documents to read by a substring of their
    folded text, as propagation does, among the documents it does not hold yet when the
    vocabulary says no. The correspondence table's door asks it
    (`annotator.services.table.corpus_check_set`)."""
    key = fold_key(replacement)
    if len(key) < 2:
        return False
    if key.startswith("\u0627\u0644") and len(key) > 3:
        key = key[1:]  # found with its article's alef elided too
    documents = Document.objects.filter(project_id=project_id, search_text__contains=key)
    if not vocabulary_may_hold(project_id, replacement):
        documents = documents.filter(words_indexed=False)
    candidates = documents.originals().order_by("pk").values_list("pk", "text")
    matcher = KnownEntityRecognizer([(replacement, "X")])
    after = 0
    while True:
        # Bounded pages, each one plain query (most checks read none: one round trip).
        page = list(candidates.filter(pk__gt=after)[:IN_CORPUS_PAGE])
        if any(matcher.recognize_one(text) for _, text in page):
            return True
        if len(page) < IN_CORPUS_PAGE:
            return False
        after = page[-1][0]
