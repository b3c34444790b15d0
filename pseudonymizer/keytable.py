"""The correspondence table's rules, as pure functions over plain data.

An *entity* is one real-world referent; an *alias* is one surface form of it (per language and
script) with its replacement. The rules (DESIGN.md, "Correspond"):

- one surface never gets two replacements, or two decisions, in a project;
- two surfaces never share a replacement (that would merge two people on release);
- a replacement never equals an original found anywhere in the corpus;
- token-level consistency: once "Moshe Chaya" → "Raj Avrom", "Moshe" alone → "Raj" and
  "Chaya" → "Avrom", and a new "Moshe Levi" keeps "Raj".

The Django side stores the same data in `annotator.keys`; the command line keeps it in an
encrypted file (`pseudonymizer.keyfile`). Nothing here logs or raises with an original
surface in its message: exceptions carry the aliases as attributes instead.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pseudonymizer.folding import fold_key
from pseudonymizer.pseudonyms import Kind, SurfaceSet, invalidate, kind_of, suggest
from pseudonymizer.pseudonyms.heads import core_pseudonym, cores, wrapped
from pseudonymizer.pseudonyms.shape import apply_case, case_of, join_whitespace, split_whitespace
from pseudonymizer.table_rules import replacement_refusal
from pseudonymizer.vocabulary import (
    DECISIONS,
    REPLACED_DECISIONS,
    Decision,
    DecisionRefused,
    check_known_decision,
)

__all__ = [
    "DECISIONS",
    "Alias",
    "Conflict",
    "KeyConflict",
    "KeyTable",
    "token_aliases",
]

PSEUDONYMIZE = Decision.PSEUDONYMIZE
KEEP = Decision.KEEP
INVALIDATE = Decision.INVALIDATE
DELETE = Decision.DELETE
_REPLACED = REPLACED_DECISIONS
# The entity of an alias not recorded yet: no entity's words are its own.
NO_ENTITY = -1
FORMAT_VERSION = 1


@dataclass
class Alias:
    """One surface form of an entity in one language, and what replaces it.

    `parent` is the surface of the alias a token-level alias was cut from ("Moshe Chaya" for
    "Moshe"). The surface stays out of `repr`: it is an original.
    """

    surface: str = field(repr=False)
    language: str
    replacement: str
    entity: int
    decision: str = Decision.PSEUDONYMIZE.value
    label: str = "PER"
    parent: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Conflict:
    """A breach of the rules found in a table (one built by hand, merged or loaded).

    kind: `surface_decision` (one surface, two decisions), `surface_replacement` (one surface,
    two replacements) or `entity_pseudonym` (one entity whose aliases in one language replace
    the same word two ways). `values` are the decisions or replacements in conflict.
    """

    kind: str
    surfaces: tuple[str, ...]
    entities: tuple[int, ...]
    values: tuple[str, ...]


class KeyConflict(ValueError):
    """An alias the table refuses; `alias` is the one refused, `existing` the one in the way."""

    def __init__(self, reason: str, alias: Alias, existing: Alias | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.alias = alias
        self.existing = existing


def _tokens(surface: str) -> list[str]:
    return fold_key(surface).split()


def _with_case_of(surface: str, replacement: str) -> str:
    """`replacement` in the capitalisation of `surface`, word by word, when both have as many."""
    surface_tokens = split_whitespace(surface.strip())[0]
    tokens, separators = split_whitespace(replacement)
    if len(tokens) != len(surface_tokens):
        return replacement
    cased = [
        apply_case(case_of(old), new) if case_of(new) != case_of(old) else new
        for old, new in zip(surface_tokens, tokens, strict=True)
    ]
    return join_whitespace(cased, separators)


def token_aliases(surface: str, replacement: str, label: str) -> list[tuple[str, str]]:
    """The token-level aliases a pseudonymized person's name brings: ("Moshe", "Raj") and
    ("Chaya", "Avrom") for "Moshe Chaya" → "Raj Avrom".

    Only for people (a word of a place or an organisation, "Rue" or "Bank", is not a name on
    its own), only when surface and replacement have as many words, and never for a word kept
    as it is (a title) or with fewer than two letters (an initial, "K.", would match
    everywhere), nor for a word whose piece is another word of the name (a pseudonym made of
    the name's own words would make a word's pseudonym an original). Each word comes once, in
    the surface's and the replacement's own spelling.
    """
    if kind_of(label) is not Kind.PERSON:
        return []
    words, _ = split_whitespace(surface.strip())
    pieces, _ = split_whitespace(replacement.strip())
    if len(words) < 2 or len(words) != len(pieces):
        return []
    found: dict[str, tuple[str, str]] = {}
    keys = {fold_key(word) for word in words}
    for word, piece in zip(words, pieces, strict=True):
        key = fold_key(word)
        if sum(char.isalnum() for char in key) < 2 or key == fold_key(piece) or key in found:
            continue
        if fold_key(piece) in keys:
            continue  # another word of the name itself ("Chaya Moshe" as "Moshe Chaya")
        found[key] = (word, piece)
    return list(found.values())


@dataclass
class KeyTable:
    """Aliases of a project's entities, with indexes kept up to date by `add`."""

    aliases: list[Alias] = field(default_factory=list)
    _by_surface: dict[str, Alias] = field(init=False, repr=False, compare=False)
    _by_replacement: dict[str, Alias] = field(init=False, repr=False, compare=False)
    _originals: SurfaceSet = field(init=False, repr=False, compare=False)
    _replacements: SurfaceSet = field(init=False, repr=False, compare=False)
    # (kind, word) → aliases whose surface has that word, for token-level lookups.
    _by_token: dict[tuple[Kind, str], list[Alias]] = field(init=False, repr=False, compare=False)
    # The words of pseudonymized people's names, and of their pseudonyms, that stand for one
    # another ("Moshe" and "Raj" of "Moshe Chaya" → "Raj Avrom"), folded, with their entity:
    # names and pseudonyms of their own, as the app's table holds them (`token_aliases`).
    _word_originals: dict[str, int] = field(init=False, repr=False, compare=False)
    _word_replacements: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_surface = {}
        self._by_replacement = {}
        self._originals = SurfaceSet()
        self._replacements = SurfaceSet()
        self._by_token = {}
        self._word_originals = {}
        self._word_replacements = {}
        for alias in self.aliases:
            self._index(alias)

    def _index(self, alias: Alias) -> None:
        key = fold_key(alias.surface)
        self._by_surface.setdefault(key, alias)
        self._originals.add(alias.surface)
        if alias.decision in _REPLACED and fold_key(alias.replacement):
            self._by_replacement.setdefault(fold_key(alias.replacement), alias)
            self._replacements.add(alias.replacement)
        kind = kind_of(alias.label)
        for token in dict.fromkeys(_tokens(alias.surface)):
            self._by_token.setdefault((kind, token), []).append(alias)
        if alias.decision == PSEUDONYMIZE:
            for word, piece in token_aliases(alias.surface, alias.replacement, alias.label):
                self._word_originals.setdefault(fold_key(word), alias.entity)
                self._word_replacements.setdefault(fold_key(piece), alias.entity)

    @property
    def originals(self) -> SurfaceSet:
        """Every surface of the table (for leak checks and `forbidden`)."""
        return self._originals

    @property
    def replacements(self) -> SurfaceSet:
        """Every replacement in use (pseudonyms and invalidated forms)."""
        return self._replacements

    def next_entity(self) -> int:
        """An entity number no alias uses yet."""
        return max((alias.entity for alias in self.aliases), default=0) + 1

    def lookup(self, surface: str) -> Alias | None:
        """The alias of `surface` (compared normalised: case, NFC and spaces ignored)."""
        return self._by_surface.get(fold_key(surface))

    def add(self, alias: Alias) -> None:
        """Record `alias`, or raise KeyConflict when it would break a rule.

        Refused: a surface that already has another replacement, decision or entity; a
        replacement already used by another surface; a replacement equal to an original; a
        surface equal to a replacement in use. Adding an identical alias again does nothing.
        """
        check_known_decision(alias.decision)
        key = fold_key(alias.surface)
        if not key:
            raise ValueError("an alias needs a surface")
        replaced = alias.decision in _REPLACED
        replacement_key = fold_key(alias.replacement)
        if replaced and not replacement_key:
            raise ValueError(f"a {alias.decision} alias needs a replacement")
        existing = self._by_surface.get(key)
        if existing is not None:
            if (
                fold_key(existing.replacement) == replacement_key
                and existing.decision == alias.decision
                and existing.entity == alias.entity
            ):
                return
            if existing.decision != alias.decision:
                raise KeyConflict("this surface already has another decision", alias, existing)
            if existing.entity != alias.entity:
                raise KeyConflict("this surface already belongs to another entity", alias, existing)
            raise KeyConflict("this surface already has another replacement", alias, existing)
        owner = self._by_replacement.get(key)
        if owner is not None:
            raise KeyConflict("this surface is already a replacement", alias, owner)
        if replaced:
            refused = replacement_refusal(_View(self, alias.entity), alias.surface,
                                          alias.replacement)  # fmt: skip
            if refused is not None:
                in_the_way = self._by_replacement.get(replacement_key) or self._by_surface.get(
                    replacement_key
                )
                raise KeyConflict(refused, alias, in_the_way)
        self.aliases.append(alias)
        self._index(alias)
        self._words_add(alias)

    def _words_add(self, alias: Alias) -> None:
        """The words of a pseudonymized person's name, recorded as names of their own with
        the words of its pseudonym ("Moshe" → "Raj" beside "Moshe Chaya" → "Raj Avrom"), as
        the app's table records them (`annotator.keys.surfaces.token_aliases_add`): where the
        word is free, and its piece neither an original nor another's pseudonym."""
        if alias.decision != PSEUDONYMIZE or alias.parent is not None:
            return
        for word, piece in token_aliases(alias.surface, alias.replacement, alias.label):
            word_key, piece_key = fold_key(word), fold_key(piece)
            if (
                word_key in self._by_surface
                or piece_key in self._by_replacement
                or piece_key in self._by_surface
            ):
                continue
            token = Alias(word, alias.language, piece, alias.entity, PSEUDONYMIZE, alias.label,
                          alias.surface)  # fmt: skip
            self.aliases.append(token)
            self._index(token)

    def _rendered(self, alias: Alias, surface: str) -> str:
        if alias.decision == KEEP:
            return surface
        if alias.decision == DELETE:
            return ""
        if alias.surface == surface:
            return alias.replacement
        return _with_case_of(surface, alias.replacement)

    def _acceptable(
        self,
        surface: str,
        replacement: str,
        forbidden: SurfaceSet | None,
        entity: int | None = None,
    ) -> bool:
        """Whether `replacement` may be the pseudonym of `surface` (of `entity`, or a new
        entity): the table's rules (`pseudonymizer.table_rules`), and not `forbidden`."""
        view = _View(self, entity if entity is not None else NO_ENTITY)
        return replacement_refusal(view, surface, replacement) is None and not (
            forbidden is not None and replacement in forbidden
        )

    def _token_replacements(self, kind: Kind, token: str) -> list[tuple[Alias, int]]:
        """(alias, position) for every pseudonymized alias of `kind` whose surface has `token`
        at a position its replacement can be cut at (as many words on both sides)."""
        found: list[tuple[Alias, int]] = []
        for alias in self._by_token.get((kind, token), ()):
            if alias.decision != PSEUDONYMIZE:
                continue
            words = _tokens(alias.surface)
            if len(words) != len(split_whitespace(alias.replacement.strip())[0]):
                continue
            found.extend((alias, index) for index, word in enumerate(words) if word == token)
        return found

    def _cut(
        self, surface: str, label: str, language: str, forbidden: SurfaceSet | None
    ) -> Alias | None:
        """A token-level alias: `surface` is a run of words of a longer person's name (a word
        of a place or an organisation is not a name on its own: `token_aliases`)."""
        words = _tokens(surface)
        kind = kind_of(label)
        if not words or kind is not Kind.PERSON:
            return None
        for alias, start in self._token_replacements(kind, words[0]):
            alias_words = _tokens(alias.surface)
            if len(alias_words) <= len(words) or alias_words[start : start + len(words)] != words:
                continue
            pieces = split_whitespace(alias.replacement.strip())[0][start : start + len(words)]
            if any(fold_key(new) == old for new, old in zip(pieces, words, strict=True)):
                continue  # a kept word (a title, "Rue") maps to itself: not a pseudonym
            separators = split_whitespace(surface.strip())[1]
            candidate = _with_case_of(surface, join_whitespace(pieces, separators))
            if self._acceptable(surface, candidate, forbidden, alias.entity):
                return Alias(
                    surface, language, candidate, alias.entity, PSEUDONYMIZE, label, alias.surface
                )
        return None

    def _composed(self, surface: str, suggestions: list[str], label: str) -> list[str]:
        """Suggestions with the words already mapped at word level put back: after
        "Moshe Chaya" → "Raj Avrom", "Moshe Levi" is offered "Raj …"."""
        words = _tokens(surface)
        kind = kind_of(label)
        known: dict[int, str] = {}
        for index, word in enumerate(words):
            for alias, position in self._token_replacements(kind, word):
                piece = split_whitespace(alias.replacement.strip())[0][position]
                if fold_key(piece) != word:
                    known[index] = piece
                    break
        if not known:
            return []
        composed = []
        for suggestion in suggestions:
            tokens, separators = split_whitespace(suggestion)
            if len(tokens) != len(words):
                continue
            for index, piece in known.items():
                tokens[index] = piece
            composed.append(_with_case_of(surface, join_whitespace(tokens, separators)))
        return composed

    def replacement_for(
        self,
        surface: str,
        label: str,
        language: str,
        secret: str,
        *,
        decision: str | None = None,
        forbidden: Collection[str] = (),
        entity: int | None = None,
    ) -> str:
        """What replaces `surface`, recording a new alias when the table has none.

        In order: the alias of the surface (in the surface's capitalisation; the surface itself
        for `keep`, "" for `delete`); a token-level alias cut from a longer alias of the same
        kind ("Moshe" → "Raj" after "Moshe Chaya" → "Raj Avrom"); a new pseudonym from
        `suggest` (taken = every replacement, forbidden = every original and `forbidden`),
        with words already mapped put back, recorded under `entity` or a new entity.

        `decision` None follows the table (pseudonymize for a new surface); `keep`, `delete`
        and `invalidate` (with `invalidate(surface, secret)`) record a new alias with that
        decision. A decision other than the one the table holds for the surface raises
        KeyConflict: one surface, one decision.
        """
        if decision is not None:
            check_known_decision(decision)
        alias = self.lookup(surface)
        if alias is not None:
            if decision is not None and decision != alias.decision:
                refused = Alias(surface, language, "", alias.entity, decision, label)
                raise KeyConflict("this surface already has another decision", refused, alias)
            return self._rendered(alias, surface)
        extra = SurfaceSet(forbidden) if forbidden else None
        joined = self._joined(surface, label, language, decision or PSEUDONYMIZE, secret, extra)
        if joined is not None and (entity is None or entity == joined.entity):
            self.add(joined)
            return self._rendered(joined, surface)
        if decision is not None and decision != PSEUDONYMIZE:
            replacement = invalidate(surface, secret) if decision == INVALIDATE else ""
            number = self.next_entity() if entity is None else entity
            new = Alias(surface, language, replacement, number, decision, label)
            self.add(new)
            return self._rendered(new, surface)
        cut = self._cut(surface, label, language, extra)
        if cut is not None and (entity is None or entity == cut.entity):
            self.add(cut)
            return cut.replacement
        avoid = SurfaceSet([*self._originals, *forbidden]) if forbidden else self._originals
        suggestions = suggest(
            surface, label, language, secret, count=3, taken=self._replacements, forbidden=avoid
        )
        if kind_of(label) is Kind.PERSON:
            composed = self._composed(surface, suggestions, label)
            suggestions = [*composed, *suggestions]
        for candidate in suggestions:
            if self._acceptable(surface, candidate, extra, entity):
                new = Alias(
                    surface,
                    language,
                    candidate,
                    self.next_entity() if entity is None else entity,
                    PSEUDONYMIZE,
                    label,
                )
                self.add(new)
                return candidate
        raise KeyConflict("no acceptable pseudonym could be drawn", Alias(surface, language, "", 0))

    def _joined(
        self,
        surface: str,
        label: str,
        language: str,
        decision: str,
        secret: str,
        forbidden: SurfaceSet | None,
    ) -> Alias | None:
        """`surface` as a new name of the entity a recorded name of the same label and
        decision names through a head word, a title or a proclitic
        (`pseudonymizer.pseudonyms.heads`), as the app joins it
        (`annotator.keys.surfaces._join_named`): "Dr Moshe Chaya" after "Moshe Chaya" takes
        "Dr " + its pseudonym, and "Moshe Chaya" after "Dr Moshe Chaya" the wider pseudonym
        less its title. None when no such name is recorded, or the pseudonym so made breaks a
        rule: the caller draws one."""
        candidates = [(head.core, head, True) for head in cores(surface, label)]
        candidates += [(head.prefix + head.core, head, False) for head in wrapped(surface, label)]
        for named_surface, head, wider in candidates:
            named = self.lookup(named_surface)
            if (
                named is None
                or named.parent is not None
                or named.label != label
                or named.decision != decision
            ):
                continue
            pseudonym: str | None = ""
            if decision == PSEUDONYMIZE:
                pseudonym = (
                    head.wrap(named.replacement) if wider
                    else core_pseudonym(head, named.replacement)
                )  # fmt: skip
            elif decision == INVALIDATE:
                pseudonym = invalidate(surface, secret)
            if pseudonym is None:
                continue
            if pseudonym and not self._acceptable(surface, pseudonym, forbidden, named.entity):
                continue
            return Alias(surface, language, pseudonym, named.entity, decision, label)
        return None

    def conflicts(self) -> list[Conflict]:
        """Every breach of the rules in the table, surfaces first, then entities."""
        found: list[Conflict] = []
        by_surface: dict[str, list[Alias]] = {}
        for alias in self.aliases:
            by_surface.setdefault(fold_key(alias.surface), []).append(alias)
        for group in by_surface.values():
            if len(group) < 2:
                continue
            surfaces = tuple(dict.fromkeys(alias.surface for alias in group))
            entities = tuple(dict.fromkeys(alias.entity for alias in group))
            decisions = tuple(dict.fromkeys(alias.decision for alias in group))
            if len(decisions) > 1:
                found.append(Conflict("surface_decision", surfaces, entities, decisions))
            replaced = [alias for alias in group if alias.decision in _REPLACED]
            keys = dict.fromkeys(fold_key(alias.replacement) for alias in replaced)
            if len(keys) > 1:
                values = tuple(dict.fromkeys(alias.replacement for alias in replaced))
                found.append(Conflict("surface_replacement", surfaces, entities, values))
        found.extend(self._entity_conflicts())
        return found

    def _entity_conflicts(self) -> list[Conflict]:
        """One entity, one language, one word replaced two ways across its aliases."""
        groups: dict[tuple[int, str], list[Alias]] = {}
        for alias in self.aliases:
            if alias.decision == PSEUDONYMIZE:
                groups.setdefault((alias.entity, alias.language), []).append(alias)
        found = []
        for (entity, _language), group in groups.items():
            mapping: dict[str, dict[str, list[Alias]]] = {}
            for alias in group:
                words = _tokens(alias.surface)
                pieces = _tokens(alias.replacement)
                if len(words) != len(pieces):
                    continue
                for word, piece in zip(words, pieces, strict=True):
                    if word != piece:
                        mapping.setdefault(word, {}).setdefault(piece, []).append(alias)
            for options in mapping.values():
                if len(options) < 2:
                    continue
                involved = [alias for aliases in options.values() for alias in aliases]
                surfaces = tuple(dict.fromkeys(alias.surface for alias in involved))
                values = tuple(dict.fromkeys(alias.replacement for alias in involved))
                found.append(Conflict("entity_pseudonym", surfaces, (entity,), values))
        return found

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: `{"version": 1, "aliases": [...]}`."""
        return {
            "version": FORMAT_VERSION,
            "aliases": [
                {
                    "surface": alias.surface,
                    "language": alias.language,
                    "replacement": alias.replacement,
                    "entity": alias.entity,
                    "decision": alias.decision,
                    "label": alias.label,
                    **({"parent": alias.parent} if alias.parent is not None else {}),
                }
                for alias in self.aliases
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> KeyTable:
        """The table `to_dict` wrote, as it was (conflicts included: see `conflicts()`).

        Raises ValueError on data of another shape or version.
        """
        if not isinstance(data, Mapping) or data.get("version") != FORMAT_VERSION:
            raise ValueError(f"not a key table of version {FORMAT_VERSION}")
        rows = data.get("aliases")
        if not isinstance(rows, list):
            raise ValueError("a key table needs a list of aliases")
        return cls(aliases=[_alias_from(row, number) for number, row in enumerate(rows, 1)])

    @classmethod
    def from_aliases(cls, aliases: Iterable[Alias]) -> KeyTable:
        """A table built through `add`, so that it holds to the rules (or KeyConflict)."""
        table = cls()
        for alias in aliases:
            table.add(alias)
        return table


class _View:
    """The table as the rules ask it (`pseudonymizer.table_rules.TableView`), for an alias of
    `entity`: the words of its own entity's names and pseudonyms are not another's."""

    def __init__(self, table: KeyTable, entity: int) -> None:
        self.table = table
        self.entity = entity

    def is_original(self, text: str) -> bool:
        key = fold_key(text)
        return (
            key in self.table._by_surface
            or self.table._word_originals.get(key, self.entity) != self.entity
        )

    def in_use(self, text: str) -> bool:
        key = fold_key(text)
        return (
            key in self.table._by_replacement
            or self.table._word_replacements.get(key, self.entity) != self.entity
        )


def _alias_from(row: Any, number: int) -> Alias:
    if not isinstance(row, Mapping):
        raise ValueError(f"alias {number}: not an object")
    strings = ("surface", "language", "replacement", "decision", "label")
    for name in strings:
        if not isinstance(row.get(name), str):
            raise ValueError(f"alias {number}: {name} must be a string")
    entity = row.get("entity")
    if not isinstance(entity, int) or isinstance(entity, bool):
        raise ValueError(f"alias {number}: entity must be an integer")
    try:
        check_known_decision(row["decision"])
    except DecisionRefused as refused:
        raise ValueError(f"alias {number}: {refused}") from None
    parent = row.get("parent")
    if parent is not None and not isinstance(parent, str):
        raise ValueError(f"alias {number}: parent must be a string")
    return Alias(
        surface=row["surface"],
        language=row["language"],
        replacement=row["replacement"],
        entity=entity,
        decision=row["decision"],
        label=row["label"],
        parent=parent,
    )
