"""Key export and import: a project's correspondence table to and from the engine's key file.

The file is `pseudonymizer.keyfile`'s (scrypt + Fernet under a passphrase), holding a
`pseudonymizer.keytable.KeyTable`, so `python -m pseudonymizer pseudonymize --keys FILE` reuses
a project's choices, and a table the command line built can seed a project.

Export decrypts every original of the project (admins only, audited by the Domain). Entities are
numbered 1, 2, … in the file (the database's ids stay in the database); a token-level alias
names the alias it was cut from by its surface, as the engine does. What the engine's format
has no place for (a keep's reason, who decided) stays behind.

Import is all or nothing, in one transaction on the keys database: the file must hold to the
engine's rules on its own (`KeyTable.add`), an alias the project already holds with the same
choice is skipped, and one the project holds otherwise (another decision, another pseudonym,
a pseudonym another surface uses or that names someone in the project) is a conflict. Any
conflict refuses the whole file (`ImportConflicts`, 409, with counts and where in the file):
the table is never overwritten, and never half imported. New aliases go through the table's
own service (`surface_decide`), so the rules and the word index are the ones every choice
gets; aliases of one entity in the file end in one entity of the project.

Nothing here logs or raises an original or a passphrase: conflicts name a row of the file,
its entity number, language and label, and why. The audit of an export and of an import is
the Domain's (`annotator.services.table`).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction

from annotator.errors import DomainError
from annotator.keys import crypto
from annotator.keys.errors import ImportConflicts, KeyFileRefused, SurfaceConflict
from annotator.keys.models import Alias, Entity
from annotator.keys.scope import Scope
from annotator.keys.surfaces import Choice, InCorpus, surface_choices, surface_decide
from annotator.routers import keys_alias
from pseudonymizer import keyfile
from pseudonymizer.keytable import Alias as KeyAlias
from pseudonymizer.keytable import KeyConflict, KeyTable
from pseudonymizer.vocabulary import REPLACED_DECISIONS

logger = logging.getLogger(__name__)

# A key file guards every original of a project: a passphrase shorter than this is refused
# for an export. An import takes the file's passphrase, whatever made it.
MIN_PASSPHRASE = 12
# An upload bigger than this is not a key file of any project Cloak holds (about 2 million
# aliases): refused before it is read.
MAX_FILE_BYTES = 256 * 1024 * 1024
FILE_CONTENT_TYPE = "application/json"


@dataclass(frozen=True)
class ImportConflict:
    """One alias of the file the project's table refuses: never its surface."""

    row: int  # its position in the file's list of aliases, from 1
    entity: int  # the file's entity number
    language: str
    label: str
    reason: str


@dataclass
class ImportCounts:
    aliases: int = 0  # in the file
    added: int = 0  # new to the project
    present: int = 0  # already in the project with the same choice
    conflicts: int = 0
    entities: int = 0  # new entities in the project

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass
class _Report:
    counts: ImportCounts
    conflicts: list[ImportConflict] = field(default_factory=list)

    def refuse(self, row: int, alias: KeyAlias, reason: str) -> None:
        conflict = ImportConflict(row, alias.entity, alias.language, alias.label, reason)
        self.conflicts.append(conflict)
        self.counts.conflicts = len(self.conflicts)


def check_export_passphrase(passphrase: str) -> None:
    if len(passphrase) < MIN_PASSPHRASE:
        raise DomainError(f"the passphrase must have at least {MIN_PASSPHRASE} characters")


# --- Export -------------------------------------------------------------------------------


def export_table(scope: Scope) -> KeyTable:
    """The project's correspondence table as the engine's KeyTable (originals decrypted)."""
    rows = list(
        Alias.objects.using(keys_alias())
        .filter(project_id=scope.pk)
        .select_related("entity")
        .order_by("pk")
    )
    originals = {row.pk: row.original for row in rows}
    numbers: dict[int, int] = {}
    aliases = [
        KeyAlias(
            surface=originals[row.pk],
            language=row.language,
            replacement=row.replacement,
            entity=numbers.setdefault(row.entity_id, len(numbers) + 1),
            decision=row.entity.decision,
            label=row.entity.label,
            parent=originals.get(row.parent_id) if row.parent_id is not None else None,
        )
        for row in rows
    ]
    return KeyTable(aliases=aliases)


def table_to_bytes(table: KeyTable, passphrase: str) -> bytes:
    """The key file of `table` under `passphrase`, as `keyfile.save` writes it."""
    with tempfile.TemporaryDirectory(prefix="cloak-keys-") as folder:
        path = Path(folder) / "keys.json.enc"
        keyfile.save(table, path, passphrase)
        return path.read_bytes()


def table_from_bytes(data: bytes, passphrase: str) -> KeyTable:
    """The table of a key file's bytes; KeyFileRefused when it cannot be read."""
    if len(data) > MAX_FILE_BYTES:
        raise KeyFileRefused("this file is too large to be a key file")
    if not passphrase:
        raise KeyFileRefused("the passphrase is empty")
    with tempfile.TemporaryDirectory(prefix="cloak-keys-") as folder:
        path = Path(folder) / "keys.json.enc"
        path.write_bytes(data)
        try:
            return keyfile.load(path, passphrase)
        except keyfile.KeyFileError as error:
            raise KeyFileRefused(str(error)) from None


@dataclass(frozen=True)
class Exported:
    """A project's key file and what it holds."""

    data: bytes
    aliases: int
    entities: int


def keys_export(scope: Scope, passphrase: str) -> Exported:
    """The project's key file under `passphrase`, and how many aliases and entities it
    holds."""
    check_export_passphrase(passphrase)
    table = export_table(scope)
    data = table_to_bytes(table, passphrase)
    entities = len({alias.entity for alias in table.aliases})
    logger.info("keys of project %s exported (%s aliases)", scope.pk, len(table.aliases))
    return Exported(data, len(table.aliases), entities)


# --- Import -------------------------------------------------------------------------------


def _check_file(table: KeyTable) -> None:
    """The file must hold to the engine's rules on its own, as `KeyTable.add` states them."""
    checked = KeyTable()
    for row, alias in enumerate(table.aliases, 1):
        if len(alias.language) > Alias._meta.get_field("language").max_length:  # type: ignore[operator]
            raise KeyFileRefused(f"alias {row} of the file: its language is too long")
        if len(alias.label) > Entity._meta.get_field("label").max_length:  # type: ignore[operator]
            raise KeyFileRefused(f"alias {row} of the file: its label is too long")
        if len(alias.replacement) > Alias._meta.get_field("replacement").max_length:  # type: ignore[operator]
            raise KeyFileRefused(f"alias {row} of the file: its replacement is too long")
        try:
            checked.add(
                KeyAlias(
                    alias.surface,
                    alias.language,
                    alias.replacement,
                    alias.entity,
                    alias.decision,
                    alias.label,
                )
            )
        except (KeyConflict, ValueError) as error:
            reason = error.reason if isinstance(error, KeyConflict) else str(error)
            raise KeyFileRefused(
                f"alias {row} of the file breaks the table's rules: {reason}"
            ) from None


def _same(decision: str, replacement: str, alias: KeyAlias) -> bool:
    if decision != alias.decision:
        return False
    if decision in REPLACED_DECISIONS:
        return crypto.normalise_surface(replacement) == crypto.normalise_surface(alias.replacement)
    return True


def _words(alias: KeyAlias) -> int:
    return len(crypto.normalise_surface(alias.surface).split())


def import_table(
    scope: Scope, table: KeyTable, user_id: int | None = None, *, in_corpus: InCorpus
) -> ImportCounts:
    """Add the file's aliases the project lacks; all or nothing (see the module's docstring).

    Raises KeyFileRefused for a file that breaks the rules on its own, ImportConflicts when
    the project's table refuses some of its aliases.
    """
    _check_file(table)
    report = _Report(ImportCounts(aliases=len(table.aliases)))
    rows = list(enumerate(table.aliases, 1))
    existing = surface_choices(scope, [alias.surface for _, alias in rows])
    aliases = Alias.objects.using(keys_alias()).filter(project_id=scope.pk)
    pseudonyms = set(
        aliases.filter(
            replacement_key__in={crypto.normalise_surface(alias.surface) for _, alias in rows}
        ).values_list("replacement_key", flat=True)
    )
    in_use, named = _replacements_refused(scope, [alias for _, alias in rows])
    new: list[tuple[int, KeyAlias]] = []
    for row, alias in rows:
        choice = existing.get(alias.surface)
        if choice is None:
            replacement = crypto.normalise_surface(alias.replacement)
            replaced = alias.decision in REPLACED_DECISIONS
            if crypto.normalise_surface(alias.surface) in pseudonyms:
                report.refuse(row, alias, "this surface is a pseudonym in the project")
            elif replaced and replacement in in_use:
                report.refuse(row, alias, "another surface of the project has this replacement")
            elif replaced and replacement in named:
                report.refuse(row, alias, "this replacement names someone in the project")
            else:
                new.append((row, alias))
        elif _same(choice.decision, choice.replacement, alias):
            report.counts.present += 1
        elif choice.decision != alias.decision:
            report.refuse(row, alias, f"the project decided this surface: {choice.decision}")
        else:
            report.refuse(row, alias, "the project gives this surface another replacement")
    if report.conflicts:
        raise ImportConflicts(report.counts, report.conflicts)
    with transaction.atomic(using=keys_alias()):
        _add(scope, rows, new, existing, report, user_id, in_corpus)
        if report.conflicts:
            # Leaving the block by an exception rolls back every alias added above.
            raise ImportConflicts(report.counts, report.conflicts)
    logger.info("keys imported into project %s: %s", scope.pk, report.counts.as_dict())
    return report.counts


def _replacements_refused(scope: Scope, file_aliases: list[KeyAlias]) -> tuple[set[str], set[str]]:
    """Of the file's replacements (normalised), those another surface of the project has,
    and those that are originals of the project, in two indexed queries."""
    aliases = Alias.objects.using(keys_alias()).filter(project_id=scope.pk)
    keys = {crypto.normalise_surface(a.replacement) for a in file_aliases} - {""}
    in_use = set(aliases.filter(replacement_key__in=keys).values_list("replacement_key", flat=True))
    digests = {crypto.surface_digest(scope.secret, key): key for key in keys}
    found = aliases.filter(original_digest__in=list(digests)).values_list(
        "original_digest", flat=True
    )
    return in_use, {digests[digest] for digest in found}


def _add(
    scope: Scope,
    rows: list[tuple[int, KeyAlias]],
    new: list[tuple[int, KeyAlias]],
    existing: dict[str, Choice],
    report: _Report,
    user_id: int | None,
    in_corpus: InCorpus,
) -> None:
    # Whole names before the words cut from them, shorter names first: a word with a choice
    # of its own in the file is recorded before a longer name would cut it from itself.
    order = sorted(new, key=lambda item: (item[1].parent is not None, _words(item[1]), item[0]))
    created: dict[int, Choice] = {}  # row → the Choice recorded for it
    for row, alias in order:
        try:
            # No person: `surface_decide` lets a person change their own choice, and an import
            # never changes a choice. Who imported is written below.
            choice = surface_decide(
                scope,
                surface=alias.surface,
                language=alias.language,
                label=alias.label,
                decision=alias.decision,
                replacement=alias.replacement or None,
                in_corpus=in_corpus,
            )
        except SurfaceConflict as error:
            winner = error.winner
            if winner.decision == alias.decision:
                reason = "the project gives this surface another replacement"
            else:
                reason = f"the project decided this surface: {winner.decision}"
            report.refuse(row, alias, reason)
            continue
        except DomainError as error:
            report.refuse(row, alias, str(error))
            continue
        if choice.created:
            created[row] = choice
            report.counts.added += 1
        elif _same(choice.decision, choice.replacement, alias):
            # Cut from a longer name of the file a moment ago: new to the project all the same.
            report.counts.added += 1
        else:
            report.refuse(row, alias, "the project gives this surface another replacement")
    if report.conflicts:
        return
    by_row = dict(new)
    report.counts.entities = _group(rows, created, existing)
    _set_parents(scope, by_row, created)
    _set_creator(scope, created, user_id)


def _group(
    rows: list[tuple[int, KeyAlias]], created: dict[int, Choice], existing: dict[str, Choice]
) -> int:
    """One entity of the file, one entity of the project: the aliases recorded here move to
    the entity of another alias of theirs (one the project already held first), and the
    entities left empty go. Returns how many new entities remain."""
    database = keys_alias()
    present: dict[tuple[int, str, str], int] = {}
    groups: dict[tuple[int, str, str], list[int]] = {}
    for row, alias in rows:
        key = (alias.entity, alias.decision, alias.label)
        if row in created:
            groups.setdefault(key, []).append(row)
            continue
        choice = existing.get(alias.surface)
        if choice is not None and (choice.decision, choice.label) == key[1:]:
            present.setdefault(key, choice.entity_id)
    remaining = 0
    for key, group in groups.items():
        target = present.get(key)
        if target is None:
            target = created[group[0]].entity_id
            remaining += 1
        movers = {created[row].entity_id for row in group} - {target}
        if movers:
            Alias.objects.using(database).filter(entity_id__in=movers).update(entity_id=target)
            Entity.objects.using(database).filter(pk__in=movers).delete()
    return remaining


def _set_parents(scope: Scope, by_row: dict[int, KeyAlias], created: dict[int, Choice]) -> None:
    """A word cut from a longer name in the file points at that name's alias here too."""
    database = keys_alias()
    words = {row: by_row[row] for row in created if by_row[row].parent is not None}
    if not words:
        return
    parents = surface_choices(scope, {alias.parent for alias in words.values() if alias.parent})
    for row, alias in words.items():
        parent = parents.get(alias.parent or "")
        if parent is not None and parent.alias_id != created[row].alias_id:
            Alias.objects.using(database).filter(pk=created[row].alias_id).update(
                parent_id=parent.alias_id
            )


def _set_creator(scope: Scope, created: dict[int, Choice], user_id: int | None) -> None:
    if user_id is None or not created:
        return
    database = keys_alias()
    alias_ids = [choice.alias_id for choice in created.values()]
    rows = Alias.objects.using(database).filter(project_id=scope.pk)
    rows.filter(pk__in=alias_ids).update(created_by_id=user_id)
    rows.filter(parent_id__in=alias_ids, created_by__isnull=True).update(created_by_id=user_id)
    entity_ids = set(rows.filter(pk__in=alias_ids).values_list("entity_id", flat=True))
    Entity.objects.using(database).filter(pk__in=entity_ids, created_by__isnull=True).update(
        created_by_id=user_id
    )


def keys_import(
    scope: Scope, *, data: bytes, passphrase: str, in_corpus: InCorpus, user_id: int | None = None
) -> ImportCounts:
    """Import a key file's bytes into the project, all or nothing (see the module's
    docstring): KeyFileRefused or ImportConflicts, having changed nothing, or the counts."""
    return import_table(scope, table_from_bytes(data, passphrase), user_id, in_corpus=in_corpus)


def conflicts_as_dicts(conflicts: Iterable[ImportConflict]) -> list[dict[str, Any]]:
    return [asdict(conflict) for conflict in conflicts]
