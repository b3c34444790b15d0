"""The surfaces of the correspondence table: what the table holds for a surface, and the one
way a choice gets into it (a repository: the Domain reaches it through
`annotator.services.table`).

An annotator learns only the choice for a surface they are annotating (`surface_choices`);
listing and searching the table is for leads and admins. Originals are encrypted at rest and
looked up by keyed digest (`annotator.keys.crypto`), so the database never compares or
returns a plaintext surface; nothing here logs one.

Rules (the engine's, `pseudonymizer.keytable`): one surface, one decision and one replacement
in a project; two surfaces never share a replacement; a replacement never equals an original.
The first two are unique constraints on `Alias`, so concurrent choices for one surface end
with one entity and one replacement whatever the timing: the loser gets `SurfaceConflict`
with the winner's choice. A pseudonym the server drew that another surface took meanwhile is
drawn again (`DRAWS` times at most); only a pseudonym a person typed is refused for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Q

from annotator.errors import DomainError
from annotator.keys import crypto
from annotator.keys.drawn_ahead import (
    drawn_ahead_forget,
    drawn_ahead_known,
    drawn_ahead_store,
    drawn_ahead_take,
)
from annotator.keys.errors import ReplacementRefused, SurfaceConflict
from annotator.keys.models import Alias, AliasWord, Entity
from annotator.keys.scope import Scope
from annotator.keys.words import replacement_words_rewrite, word_digest, words_of, words_write
from annotator.routers import keys_alias
from pseudonymizer import table_rules
from pseudonymizer.keytable import token_aliases
from pseudonymizer.pseudonyms import SurfaceSet, invalidate, suggest
from pseudonymizer.pseudonyms.follow import follow_names, name_words
from pseudonymizer.pseudonyms.heads import core_pseudonym, cores, wrapped
from pseudonymizer.pseudonyms.shape import script_of, word_keys
from pseudonymizer.table_rules import replacement_refusal
from pseudonymizer.vocabulary import (
    REPLACED_DECISIONS,
    Decision,
    DecisionRefused,
    check_known_decision,
    kept_reason,
)

logger = logging.getLogger(__name__)

SUGGESTIONS = 5
# Whether a pseudonym occurs in a document of the project (the Domain reads the documents).
InCorpus = Callable[[str], bool]
# How often a drawn pseudonym is drawn again when another surface took it between the draw
# and the write (annotators deciding at once): each loss means a concurrent winner, so a
# few are plenty.
DRAWS = 5
# One answer for "another surface has it" and "it is an original somewhere in the project":
# an annotator must not learn which names occur in documents they cannot open.
_UNUSABLE = "this pseudonym is already used or names someone in the project: choose another"


@dataclass(frozen=True)
class Choice:
    """What the table holds for one surface: never the surface itself."""

    entity_id: int
    alias_id: int
    decision: str
    replacement: str
    keep_reason: str
    label: str
    # True when this call recorded the choice (a new surface): its occurrences elsewhere are
    # then proposed the same (propagation).
    created: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "entity_id": self.entity_id,
            "decision": self.decision,
            "replacement": self.replacement,
            "keep_reason": self.keep_reason,
            "label": self.label,
        }


def choice_of(alias: Alias) -> Choice:
    entity = alias.entity
    return Choice(
        entity_id=entity.pk,
        alias_id=alias.pk,
        decision=entity.decision,
        replacement=alias.replacement,
        keep_reason=entity.keep_reason,
        label=entity.label,
    )


def project_aliases(scope: Scope) -> Any:
    return Alias.objects.using(keys_alias()).filter(project_id=scope.pk)


def surface_choice(scope: Scope, surface: str) -> Choice | None:
    """The choice recorded for `surface` (compared as aliases are: case, NFC and spaces
    ignored), or None."""
    return surface_choices(scope, [surface]).get(surface)


def surface_choices(scope: Scope, surfaces: Iterable[str]) -> dict[str, Choice]:
    """The recorded choice of each of `surfaces` that has one, in one query."""
    by_digest: dict[str, list[str]] = {}
    for surface in surfaces:
        by_digest.setdefault(crypto.surface_digest(scope.secret, surface), []).append(surface)
    if not by_digest:
        return {}
    found: dict[str, Choice] = {}
    # Plain values, not models: a page asks for every surface it shows.
    rows = (
        project_aliases(scope)
        .filter(original_digest__in=list(by_digest))
        .values_list(
            "original_digest",
            "entity_id",
            "pk",
            "entity__decision",
            "replacement",
            "entity__keep_reason",
            "entity__label",
        )  # fmt: skip
    )
    for digest, *values in rows:
        choice = Choice(*values)
        for surface in by_digest[digest]:
            found[surface] = choice
    return found


def known_surfaces(scope: Scope) -> list[tuple[str, str]]:
    """Every decided surface of the project, all languages, as (surface, label): what the
    known-entity recognizer proposes again in later documents. Decrypts the originals: for
    the workers, never for a page."""
    rows = (
        project_aliases(scope).select_related("entity").only("original_encrypted", "entity__label")
    )
    return [(alias.original, alias.entity.label) for alias in rows.iterator(chunk_size=2000)]


def alias_family(scope: Scope, alias_ids: Collection[int]) -> list[tuple[Choice, str]]:
    """Aliases and the token-level aliases cut from them, each as its choice with its
    original, in one query (for the propagation task; never for a page)."""
    ids = list(alias_ids)
    rows = (
        project_aliases(scope)
        .filter(Q(pk__in=ids) | Q(parent_id__in=ids))
        .select_related("entity")
        .order_by("pk")
    )
    return [(choice_of(alias), alias.original) for alias in rows.iterator(chunk_size=2000)]


def _look_up(scope: Scope, column: str, values: set[str], known: dict[str, bool]) -> None:
    """Whether each of `values` is in the aliases' `column` (an indexed one), into `known`:
    the values not known yet, in one query."""
    unknown = values - known.keys()
    if unknown:
        found = set(
            project_aliases(scope)
            .filter(**{f"{column}__in": unknown})
            .values_list(column, flat=True)
        )
        known.update((value, value in found) for value in unknown)


class DigestSet(SurfaceSet):
    """The project's originals as `suggest` asks about them, answered by keyed digest through
    the table's unique index: the originals are never decrypted, and a suggestion costs a few
    indexed lookups whatever the size of the table (never a read of all of it). Asked about
    a candidate, it asks about the candidate's runs of words in the same query, so that
    `contains_within`, which `suggest` asks next, is answered without another."""

    def __init__(self, scope: Scope) -> None:
        super().__init__()
        self._scope = scope
        self._known: dict[str, bool] = {}  # digest → whether it is an original's
        self._digest_of: dict[str, str | None] = {}  # surface → its digest (None: blank)

    def _digests(self, surfaces: Iterable[str]) -> set[str]:
        found = set()
        for surface in surfaces:
            if surface not in self._digest_of:
                blank = not crypto.normalise_surface(surface)
                digest = None if blank else crypto.surface_digest(self._scope.secret, surface)
                self._digest_of[surface] = digest
            if (digest := self._digest_of[surface]) is not None:
                found.add(digest)
        return found

    def _any(self, digests: set[str]) -> bool:
        _look_up(self._scope, "original_digest", digests, self._known)
        return any(self._known[digest] for digest in digests)

    @staticmethod
    @lru_cache(maxsize=1024)
    def _runs(text: str) -> frozenset[str]:
        words = word_keys(crypto.normalise_surface(text))
        return frozenset(
            " ".join(words[start : start + size])
            for size in range(1, len(words) + 1)
            for start in range(len(words) - size + 1)
        )

    def __contains__(self, surface: object) -> bool:
        if not isinstance(surface, str):
            return False
        digests = self._digests([surface])
        self._any(digests | self._digests(self._runs(surface)))
        return self._any(digests)

    def __len__(self) -> int:
        return int(project_aliases(self._scope).count())

    def __iter__(self) -> Iterator[str]:
        return iter(())  # digests only: there is nothing to list

    def contains_within(self, text: str) -> bool:
        """Whether an original is a run of the words of `text`."""
        return self._any(self._digests(self._runs(text)))

    def prefetch(self, candidates: Iterable[str]) -> None:
        """Every candidate and every run of its words, in one query."""
        surfaces = set(candidates)
        for candidate in list(surfaces):
            surfaces |= self._runs(candidate)
        self._any(self._digests(surfaces))


class _ReplacementsInUse(SurfaceSet):
    """The pseudonyms the project's table holds, asked one at a time through its unique index
    on the normalised replacement."""

    def __init__(self, scope: Scope) -> None:
        super().__init__()
        self._scope = scope
        self._known: dict[str, bool] = {}  # normalised replacement → whether in use

    def __contains__(self, surface: object) -> bool:
        if not isinstance(surface, str):
            return False
        key = crypto.normalise_surface(surface)
        if not key:
            return False
        if key not in self._known:
            self.prefetch([surface])
        return self._known[key]

    def prefetch(self, candidates: Iterable[str]) -> None:
        """Whether each candidate is in use, in one query through the unique index."""
        keys = {crypto.normalise_surface(c) for c in candidates} - {""}
        _look_up(self._scope, "replacement_key", keys, self._known)

    def add(self, surface: str) -> None:
        """Count `surface` as in use, whatever the table said (a write just lost it)."""
        key = crypto.normalise_surface(surface)
        if key:
            self._known[key] = True

    def __len__(self) -> int:
        return int(project_aliases(self._scope).exclude(replacement_key="").count())

    def __iter__(self) -> Iterator[str]:
        return iter(())  # asked, never listed

    def contains_within(self, text: str) -> bool:
        return text in self


def replacements_in_use(scope: Scope) -> SurfaceSet:
    return _ReplacementsInUse(scope)


def suggestions_for(
    scope: Scope, surface: str, label: str, language: str, *, count: int = SUGGESTIONS
) -> list[str]:
    """Pseudonyms for `surface`, shape-preserving: the replacement already chosen for it
    first, when there is one, then fresh ones that no surface uses and that equal no
    original of the project."""
    chosen = surface_choice(scope, surface)
    first = (
        [chosen.replacement]
        if chosen is not None and chosen.decision == Decision.PSEUDONYMIZE
        else []
    )
    fresh = suggest(
        surface,
        label,
        language,
        scope.secret,
        count=count,
        taken=replacements_in_use(scope),
        forbidden=DigestSet(scope),
    )
    return [*first, *(s for s in fresh if s not in first)][:count]


def check_replacement(
    scope: Scope,
    original: str,
    replacement: str,
    in_corpus: InCorpus,
    *,
    alias_id: int | None = None,
    told: bool = False,
) -> None:
    """The one rule for a pseudonym given to the surface `original`, whoever gives it (a
    person's pick, an invalidated form, a lead's edit, a key file): not empty, not too long,
    not the original itself, no original of the table, no other surface's pseudonym (the
    alias `alias_id`'s own, and its words', aside: they are about to go), and found in no
    document of the project (`in_corpus`, the Domain's to answer). Raises ReplacementRefused.

    The rule is the engine's (`pseudonymizer.table_rules.replacement_refusal`), asked of
    this store (`_Stored`); the length is this store's own limit.

    `told`: the reasons are told apart, for a lead or an admin, who may see every original.
    Otherwise the three that would say a name occurs in the project share one answer: an
    annotator must not learn which names occur in documents they cannot open."""
    if len(replacement) > Alias._meta.get_field("replacement").max_length:  # type: ignore[operator]
        raise ReplacementRefused("this pseudonym is too long")
    refused = replacement_refusal(_Stored(scope, alias_id), original, replacement, in_corpus)
    if refused is not None:
        # The table's rule (the engine's, the command line's too), in its words; those
        # that would say a name occurs in the project are one answer unless `told`.
        told_apart = told or refused in (table_rules.EMPTY, table_rules.THE_ORIGINAL)
        raise ReplacementRefused(refused if told_apart else _UNUSABLE)


class _Stored:
    """The table as the rules ask it (`pseudonymizer.table_rules.TableView`): by keyed
    digest for an original, by folded replacement for a pseudonym in use (the alias
    `alias_id`'s own, and its words', aside: they are about to go). A word of a person's name
    and of its pseudonym is an alias of its own here (`token_aliases_add`)."""

    def __init__(self, scope: Scope, alias_id: int | None) -> None:
        self.scope = scope
        self.alias_id = alias_id

    def is_original(self, text: str) -> bool:
        digest = crypto.surface_digest(self.scope.secret, text)
        return bool(project_aliases(self.scope).filter(original_digest=digest).exists())

    def in_use(self, text: str) -> bool:
        others = project_aliases(self.scope).filter(replacement_key=crypto.normalise_surface(text))
        if self.alias_id is not None:
            others = others.exclude(pk=self.alias_id).exclude(parent_id=self.alias_id)
        return bool(others.exists())


def _draw(
    scope: Scope, surface: str, label: str, language: str, *, lost: Iterable[str] = ()
) -> str:
    """The first free suggestion for `surface`, past the pseudonyms it `lost` to others."""
    taken = replacements_in_use(scope)
    for pseudonym in lost:
        taken.add(pseudonym)
    drawn = suggest(
        surface,
        label,
        language,
        scope.secret,
        count=1,
        taken=taken,
        forbidden=DigestSet(scope),
    )
    if not drawn:
        raise DomainError("no pseudonym could be drawn for this surface: type one")
    return drawn[0]


def _same(choice: Choice, decision: str, replacement: str | None) -> bool:
    if choice.decision != decision:
        return False
    if decision in REPLACED_DECISIONS and replacement:
        return crypto.normalise_surface(choice.replacement) == crypto.normalise_surface(replacement)
    return True


def _conflict(choice: Choice) -> SurfaceConflict:
    if choice.decision == Decision.PSEUDONYMIZE:
        message = "this surface already has another pseudonym in the project"
    else:
        message = f"this surface is already decided in the project: {choice.decision}"
    return SurfaceConflict(message, choice)


def _owned_by(alias: Alias, user_id: int | None, relied_on: Callable[[int], bool]) -> bool:
    """Whether the person `user_id` made this choice and nothing else relies on it yet
    (`relied_on`, asked of the entity's id, says whether something does): then it is theirs
    to change (its token-level aliases go with it). Any other change of a recorded choice is
    the lead's (review)."""
    if user_id is None or alias.created_by_id != user_id:
        return False
    if alias.parent_id is not None:
        return False  # a word cut from a longer name follows that name
    return not relied_on(alias.entity_id)


def entity_withdraw(
    scope: Scope, *, entity_id: int, user_id: int | None, relied_on: Callable[[], bool]
) -> bool:
    """Take a person's own choice out of the table: the entity and its aliases, when the
    person `user_id` made it, no other name was linked to it, and nothing else relies on it
    (`relied_on`, asked while the entity is locked). False, changing nothing, otherwise."""
    database = keys_alias()
    with transaction.atomic(using=database):
        entity = (
            Entity.objects.using(database)
            .select_for_update()
            .filter(pk=entity_id, project_id=scope.pk)
            .first()
        )
        if entity is None or user_id is None or entity.created_by_id != user_id:
            return False
        names = list(
            Alias.objects.using(database)
            .filter(entity_id=entity_id, parent__isnull=True)
            .values_list("created_by_id", flat=True)
        )
        if names != [user_id] or relied_on():
            return False
        entity.delete(using=database)
    logger.info("entity %s withdrawn in project %s: its span moved on", entity_id, scope.pk)
    return True


def surface_decide(
    scope: Scope,
    *,
    surface: str,
    language: str,
    label: str,
    decision: str,
    replacement: str | None = None,
    keep_reason: str = "",
    in_corpus: InCorpus,
    user_id: int | None = None,
    relied_on: Callable[[int], bool] = lambda entity_id: True,
) -> Choice:
    """Record `decision` for `surface`, or find it recorded; the surface's choice.

    A new surface gets a new entity and alias (and, for a person pseudonymized, the
    token-level aliases of its words that no other surface has). `replacement` is the
    pseudonym the person picked; when None, the one already recorded, else the first
    suggestion. A pseudonym given or invalidated keeps the one rule (`check_replacement`,
    `in_corpus` the Domain's part of it); one drawn that occurs in a document is drawn
    again. A surface with another choice raises SurfaceConflict with it, unless the choice is
    the person `user_id`'s own and nothing else relies on it (`relied_on`, asked of its
    entity's id): then it is changed. A new surface that names what a recorded one of the
    label names ("brother Victor Kaur", "مدينة الإسكندرية"; or the other way round) joins
    its entity with its pseudonym in the same words (`_join_named`), when no pseudonym was
    given and the decision is the same.
    """
    try:
        check_known_decision(decision)
    except DecisionRefused as error:
        raise DomainError(str(error)) from None
    keep_reason = kept_reason(decision, keep_reason)
    if not crypto.normalise_surface(surface):
        raise DomainError("an empty surface cannot be decided")
    database = keys_alias()
    digest = crypto.surface_digest(scope.secret, surface)
    with transaction.atomic(using=database):
        existing = (
            project_aliases(scope)
            .select_for_update()
            .select_related("entity")
            .filter(original_digest=digest)
            .first()
        )
        if existing is not None:
            choice = choice_of(existing)
            if _same(choice, decision, replacement):
                if keep_reason and keep_reason != choice.keep_reason:
                    Entity.objects.using(database).filter(pk=choice.entity_id).update(
                        keep_reason=keep_reason
                    )
                    choice = replace(choice, keep_reason=keep_reason)
                return choice  # read under the lock, nothing else changed
            if not _owned_by(existing, user_id, relied_on):
                raise _conflict(choice)
            entity_id = existing.entity_id
            existing.delete()
            Entity.objects.using(database).filter(pk=entity_id).delete()
        elif replacement is None:
            joined = _join_named(
                scope, surface=surface, language=language, label=label,
                decision=decision, user_id=user_id, in_corpus=in_corpus,
            )  # fmt: skip
            if joined is not None:
                return joined
        return _create(
            scope,
            surface=surface,
            digest=digest,
            language=language,
            label=label,
            decision=decision,
            replacement=replacement,
            keep_reason=keep_reason,
            user_id=user_id,
            in_corpus=in_corpus,
        )


def _join_named(
    scope: Scope,
    *,
    surface: str,
    language: str,
    label: str,
    decision: str,
    user_id: int | None,
    in_corpus: InCorpus,
) -> Choice | None:
    """`surface` as a new name of the entity a recorded surface of the same label and
    decision names (`pseudonymizer.pseudonyms.heads`): "brother Victor Kaur" after "Victor
    Kaur" takes "brother " + its pseudonym; "الإسكندرية" after "مدينة الإسكندرية" takes the
    wider pseudonym less its head word. None when no such surface is recorded, or the
    pseudonym so made breaks the rule (`check_replacement`): the caller draws one."""
    secret = scope.secret
    candidates: list[tuple[str, Any, bool]] = []  # (digest, head, the surface is the wider)
    for head in cores(surface, label):
        candidates.append((crypto.surface_digest(secret, head.core), head, True))
    for head in wrapped(surface, label):
        candidates.append((crypto.surface_digest(secret, head.prefix + head.core), head, False))
    if not candidates:
        return None
    found = {
        alias.original_digest: alias
        for alias in project_aliases(scope)
        .select_related("entity")
        .filter(original_digest__in=[c[0] for c in candidates], parent__isnull=True)
        .filter(entity__label=label, entity__decision=decision)
    }
    for named_digest, head, wider in candidates:
        named = found.get(named_digest)
        if named is None:
            continue
        if decision == Decision.PSEUDONYMIZE:
            pseudonym = (
                head.wrap(named.replacement) if wider
                else core_pseudonym(head, named.replacement)
            )  # fmt: skip
        elif decision == Decision.INVALIDATE:
            pseudonym = invalidate(surface, secret)
        else:
            pseudonym = ""
        if pseudonym is None:
            continue
        try:
            if pseudonym:
                check_replacement(scope, surface, pseudonym, in_corpus)
            with transaction.atomic(using=keys_alias()):
                alias = _alias_of(scope, named.entity_id, surface, language, user_id)
                alias.set_replacement(pseudonym)
                alias.replacement_typed = named.replacement_typed
                alias.save(using=keys_alias())
                words_write(secret, [(alias, surface)])
        except (ReplacementRefused, IntegrityError):
            continue
        logger.info("a new name of entity %s joined it in project %s", named.entity_id, scope.pk)
        alias = Alias.objects.using(keys_alias()).select_related("entity").get(pk=alias.pk)
        return replace(choice_of(alias), created=True)
    return None


def _followed(scope: Scope, surface: str, label: str, drawn: str) -> str | None:
    """`drawn` for an e-mail or a handle rebuilt from the pseudonyms of the person's names
    it holds (`pseudonymizer.pseudonyms.follow`), each a word of a name the table
    pseudonymizes; None when it holds none, or a word the table does not know."""
    words = name_words(surface, label)
    if not words:
        return None
    digests = {word: crypto.surface_digest(scope.secret, word) for word in words}
    known = dict(
        project_aliases(scope)
        .filter(
            original_digest__in=set(digests.values()),
            entity__label="PER",
            entity__decision=Decision.PSEUDONYMIZE,
        )
        .exclude(replacement="")
        .values_list("original_digest", "replacement")
    )
    if not known:
        return None
    followed = follow_names(
        surface, label, drawn, lambda word: known.get(digests[word]), scope.secret
    )
    if followed is None or crypto.normalise_surface(followed) == crypto.normalise_surface(surface):
        return None
    return followed


def _refollow(scope: Scope, name: str, in_corpus: InCorpus) -> None:
    """The e-mails and handles already in the table that hold every word of the person's
    `name` just decided, with a pseudonym the server drew: drawn again to follow the name's
    (`_followed`), so that an address decided before the name follows it too. One a person
    typed stays theirs."""
    digests = {word_digest(scope.secret, word) for word in words_of(name)}
    if len(digests) < 2:
        return  # one word ("Sara") would pull in every address that holds it
    holding = (
        AliasWord.objects.using(keys_alias())
        .filter(project_id=scope.pk, digest__in=digests)
        .values("alias_id")
        .annotate(n=Count("id"))
        .filter(n=len(digests))
        .values_list("alias_id", flat=True)
    )
    candidates = (
        project_aliases(scope)
        .select_related("entity")
        .filter(pk__in=list(holding), parent__isnull=True, replacement_typed=False)
        .filter(entity__label__in=("EMAIL", "USERNAME"), entity__decision=Decision.PSEUDONYMIZE)
    )
    for alias in candidates:
        followed = _followed(scope, alias.original, alias.entity.label, alias.replacement)
        if followed is None or followed == alias.replacement:
            continue
        try:
            check_replacement(scope, alias.original, followed, in_corpus, alias_id=alias.pk)
            with transaction.atomic(using=keys_alias()):
                alias.set_replacement(followed)
                alias.save(using=keys_alias(), update_fields=["replacement", "replacement_key"])
                replacement_words_rewrite(scope.secret, alias)
        except (ReplacementRefused, IntegrityError):
            continue
        logger.info("alias %s follows a name decided in project %s", alias.pk, scope.pk)


@dataclass(frozen=True)
class _New:
    """A surface's first choice, as it is being recorded: the surface, where and how."""

    surface: str
    digest: str
    language: str
    label: str
    decision: str
    keep_reason: str
    user_id: int | None
    # What the person typed, if anything, before a draw fills it.
    requested: str | None


def _create(
    scope: Scope,
    *,
    surface: str,
    digest: str,
    language: str,
    label: str,
    decision: str,
    replacement: str | None,
    keep_reason: str,
    user_id: int | None,
    in_corpus: InCorpus,
) -> Choice:
    """Record a surface's first choice, step by step: the pseudonym given checked (or an
    invalidated form made), or one drawn; the entity and its alias inserted, where a choice
    that committed first for the surface wins and a pseudonym taken meanwhile is drawn
    again; then the words of a person's name, and what follows the name."""
    new = _New(surface, digest, language, label, decision, keep_reason, user_id, replacement)
    drawn = decision == Decision.PSEUDONYMIZE and not replacement
    chosen = _given_checked(scope, new, in_corpus)  # "" when drawn, kept or deleted
    lost: list[str] = []
    while True:
        if drawn:
            chosen = _drawn(scope, new, lost, in_corpus)
        try:
            alias = _entity_insert(scope, new, chosen)
        except IntegrityError:
            winner = _race_lost(scope, new, drawn)
            if winner is not None:
                return winner
            lost.append(chosen)
            if len(lost) >= DRAWS:
                raise ReplacementRefused(
                    "every pseudonym drawn for this surface was taken by another one "
                    "meanwhile: try again, or type one"
                ) from None
            logger.info(
                "a drawn pseudonym was taken meanwhile in project %s; drawing again",
                scope.pk,
            )
            continue
        break
    if decision == Decision.PSEUDONYMIZE:
        token_aliases_add(scope, alias, surface, chosen, label, language, user_id)
        if label == "PER":
            _refollow(scope, surface, in_corpus)
    logger.info("entity %s decided (%s) in project %s", alias.entity_id, decision, scope.pk)
    return replace(choice_of(alias), created=True)


def _given_checked(scope: Scope, new: _New, in_corpus: InCorpus) -> str:
    """The pseudonym a person typed, checked, or the invalidated form made and checked; ""
    for one to draw, and for keep and delete."""
    if new.decision == Decision.PSEUDONYMIZE:
        if new.requested:
            check_replacement(scope, new.surface, new.requested, in_corpus)
        return new.requested or ""
    if new.decision == Decision.INVALIDATE:
        replacement = new.requested or invalidate(new.surface, scope.secret)
        check_replacement(scope, new.surface, replacement, in_corpus)
        return replacement
    return ""


def _drawn(scope: Scope, new: _New, lost: list[str], in_corpus: InCorpus) -> str:
    """A pseudonym drawn for the surface (or the one a name it holds follows), none of
    `lost`, none a word of the documents: one found in them is drawn again, as if taken.
    The first draw is the one the worker drew ahead, when it did and it still holds."""
    ahead = None if lost else _ahead(scope, new)
    while True:
        if ahead is not None:
            chosen, ahead = ahead, None
        else:
            chosen = _draw(scope, new.surface, new.label, new.language, lost=lost)
        followed = _followed(scope, new.surface, new.label, chosen)
        if followed is not None and followed not in lost:
            chosen = followed
        if not in_corpus(chosen):
            return chosen
        lost.append(chosen)
        if len(lost) >= DRAWS:
            raise DomainError("no pseudonym could be drawn for this surface: type one")


def _ahead(scope: Scope, new: _New) -> str | None:
    """The pseudonym drawn ahead for the surface (`drawn_ahead`), taken, when it is still
    what `_draw` would give: the first free suggestion, which no original has come to hold
    since. One taken by another surface meanwhile fails the insert, as a draw would, and is
    drawn past."""
    taken = drawn_ahead_take(scope, new.digest, new.label, new.language)
    if taken is None:
        return None
    originals = DigestSet(scope)
    if taken in originals or originals.contains_within(taken):
        return None
    return taken


def surfaces_draw_ahead(
    scope: Scope, surfaces: Iterable[tuple[str, str, str]], in_corpus: InCorpus
) -> int:
    """Draw ahead the pseudonym of each (surface, label, language) that no one decided yet
    and that has none drawn: what its decision would draw (`_draw`), when no document holds
    it (one that does is left to the decision, which draws past it). Forget what was drawn
    for surfaces decided since. How many were drawn."""
    wanted: dict[tuple[str, str, str], str] = {}
    for surface, label, language in surfaces:
        if crypto.normalise_surface(surface):
            digest = crypto.surface_digest(scope.secret, surface)
            wanted.setdefault((digest, label, language), surface)
    digests = {digest for digest, _, _ in wanted}
    decided = set(
        project_aliases(scope)
        .filter(original_digest__in=digests)
        .values_list("original_digest", flat=True)
    )
    drawn_ahead_forget(scope, decided)
    known = drawn_ahead_known(scope, digests - decided)
    drawn: list[tuple[str, str, str, str]] = []
    for (digest, label, language), surface in wanted.items():
        if digest in decided or (digest, label, language) in known:
            continue
        try:
            pseudonym = _draw(scope, surface, label, language)
        except DomainError:
            continue  # nothing to draw: the decision will say so
        if not in_corpus(pseudonym):
            drawn.append((digest, label, language, pseudonym))
    return drawn_ahead_store(scope, drawn)


def _entity_insert(scope: Scope, new: _New, chosen: str) -> Alias:
    """The new entity and its alias, with `chosen`, in a savepoint: when another choice for
    the surface (or its pseudonym) committed first, the entity made here goes too
    (IntegrityError), and the caller reads the winner back."""
    database = keys_alias()
    with transaction.atomic(using=database):
        entity = Entity.objects.using(database).create(
            project_id=scope.pk,
            label=new.label,
            decision=new.decision,
            keep_reason=new.keep_reason,
            created_by_id=new.user_id,
        )
        alias = _alias_of(scope, entity.pk, new.surface, new.language, new.user_id)
        alias.entity = entity
        alias.set_replacement(chosen)
        alias.replacement_typed = bool(new.requested)
        alias.save(using=database)
        words_write(scope.secret, [(alias, new.surface)])
    return alias


def _race_lost(scope: Scope, new: _New, drawn: bool) -> Choice | None:
    """After an insert lost a race: the winner's choice for the surface when it is the one
    asked for (SurfaceConflict otherwise: never a silent swap); None when the surface is
    free and the drawn pseudonym was taken meanwhile (draw again). A pseudonym the person
    typed and another surface took meanwhile is refused, never swapped behind their back."""
    winner = (
        project_aliases(scope).select_related("entity").filter(original_digest=new.digest).first()
    )
    if winner is not None:
        choice = choice_of(winner)
        # A pseudonym drawn here loses quietly to the winner's; one the person typed must
        # match it, or the person hears of the winner's choice (409).
        if _same(choice, new.decision, new.requested):
            return choice
        raise _conflict(choice) from None
    if not drawn:
        raise ReplacementRefused(
            "this pseudonym was just taken for another surface: choose another"
        ) from None
    return None


def token_aliases_add(
    scope: Scope,
    parent: Alias,
    surface: str,
    replacement: str,
    label: str,
    language: str,
    user_id: int | None,
) -> None:
    """ "Moshe" → "Raj" beside "Moshe Chaya" → "Raj Avrom", where the word is free: a word
    that already has its own choice, or a piece used by another surface (or an original of
    the scope), is left alone. One read for every word, one insert for those that are
    free; a word taken meanwhile by another choice is skipped by the unique constraints
    (ON CONFLICT DO NOTHING) and keeps that choice."""
    secret = scope.secret
    candidates: list[Alias] = []
    pieces_of = token_aliases(surface, replacement, label)
    for word, piece in pieces_of:
        alias = _alias_of(scope, parent.entity_id, word, language, user_id, parent=parent)
        alias.set_replacement(piece)
        candidates.append(alias)
    if not candidates:
        return
    pieces = {id(alias): crypto.surface_digest(secret, alias.replacement) for alias in candidates}
    digests = [alias.original_digest for alias in candidates] + list(pieces.values())
    keys = [alias.replacement_key for alias in candidates]
    # Every row either list names: its original is an original, its pseudonym is in use.
    rows = project_aliases(scope).filter(
        Q(original_digest__in=digests) | Q(replacement_key__in=keys)
    )
    originals: set[str] = set()
    in_use: set[str] = set()
    for digest, key in rows.values_list("original_digest", "replacement_key"):
        originals.add(digest)
        in_use.add(key)
    free = [
        alias
        for alias in candidates
        if alias.original_digest not in originals
        and alias.replacement_key not in in_use
        and pieces[id(alias)] not in originals
    ]
    if not free:
        return
    Alias.objects.using(keys_alias()).bulk_create(free, ignore_conflicts=True)
    # ON CONFLICT DO NOTHING returns no ids: read back the rows that went in, to index them.
    pairs = zip(candidates, pieces_of, strict=True)
    words = {alias.original_digest: word for alias, (word, _) in pairs}
    inserted = project_aliases(scope).filter(
        parent_id=parent.pk, original_digest__in=[alias.original_digest for alias in free]
    )
    words_write(secret, [(alias, words[alias.original_digest]) for alias in inserted])


def _alias_of(
    scope: Scope,
    entity_id: int,
    surface: str,
    language: str,
    user_id: int | None,
    *,
    parent: Alias | None = None,
) -> Alias:
    """A new (unsaved) alias of `surface` for the entity, its original sealed."""
    alias = Alias(
        entity_id=entity_id,
        project_id=scope.pk,
        language=language,
        script=_script(surface),
        parent=parent,
        created_by_id=user_id,
    )
    alias.set_original(surface, scope.secret)
    return alias


def _script(surface: str) -> str:
    return script_of(surface) or ""
