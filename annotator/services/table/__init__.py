"""The one way to the correspondence table (`annotator.keys`): every page, endpoint, task,
command and service that reads or writes the keys calls this package, and nothing else of
the app imports `annotator.keys`.

- `reads`: a person's reads (a page of the table, one entity, the candidate links), each
  audited here by construction; the sealed search a page keeps in its session.
- `edits`: a lead's edits (update, merge, split, link) and a decided span's relabel: the
  keys change, then the spans follow and the edit is audited, in a documented order of
  writes.
- `surfaces`: the choice for a surface and the one way a choice gets in, suggestions, and
  what the workers and the review's scan read.
- `notes`: a lead's read of the pseudonyms of the review queue, audited.

What needs nothing of the door (no person's read to audit, no second database to order,
nothing of the corpus) is the keys' own function, handed on as it is: each takes the
project itself as its table (`annotator.keys.scope.Scope`).
- `transfer`: key export and import, audited.

And the files sealed with the keys' secret (`annotator.keys.sealed`: learned models).
"""

from annotator.keys.errors import (  # the table's refusals, in the Domain's family
    ImportConflicts,
    KeyFileRefused,
    ReplacementRefused,
    SurfaceConflict,
)

# The keys' reads and writes that need nothing of the door (no person's read to audit, no
# second database to order, nothing of the corpus): handed on as they are. Each takes the
# project itself as the table it is about (`annotator.keys.scope.Scope`).
from annotator.keys.notes import pseudonym_digest, review_note_write, review_notes
from annotator.keys.reads import (
    alias_of,
    entity_decisions,
    entity_names,
    named_apart,
    release_aliases,
    replaced_groups,
    replacements,
)
from annotator.keys.sealed import SealError, read_sealed, write_sealed
from annotator.keys.surfaces import (
    alias_family,
    known_surfaces,
    suggestions_for,
    surface_choice,
    surface_choices,
)
from annotator.keys.undo import undo_note_read, undo_note_write, undo_notes_delete
from annotator.services.table.base import corpus_check_set
from annotator.services.table.edits import (
    EntityChange,
    alias_link,
    entity_merge,
    entity_split,
    entity_update,
    span_relabel,
)
from annotator.services.table.notes import Note, review_notes_read
from annotator.services.table.reads import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    AliasRow,
    Candidate,
    EntityPage,
    EntityRow,
    KeyFilters,
    candidate_pairs_read,
    entity_get,
    entity_page,
    entity_read,
    entity_shown,
    link_candidates_read,
    search_recall,
    search_remember,
)
from annotator.services.table.surfaces import (
    SUGGESTIONS,
    Choice,
    NamedAlias,
    entity_relabel,
    entity_withdraw,
    normalise_surface,
    project_keys_delete,
    pseudonyms_draw_ahead,
    surface_decide,
    surface_digest,
)
from annotator.services.table.transfer import (
    FILE_CONTENT_TYPE,
    MAX_FILE_BYTES,
    MIN_PASSPHRASE,
    ImportConflict,
    ImportCounts,
    check_export_passphrase,
    conflicts_as_dicts,
    export_filename,
    keys_export,
    keys_import,
)

__all__ = [
    "corpus_check_set",
    "DEFAULT_LIMIT",
    "FILE_CONTENT_TYPE",
    "MAX_FILE_BYTES",
    "MAX_LIMIT",
    "MIN_PASSPHRASE",
    "SUGGESTIONS",
    "AliasRow",
    "Candidate",
    "Choice",
    "EntityChange",
    "EntityPage",
    "EntityRow",
    "ImportConflict",
    "ImportConflicts",
    "ImportCounts",
    "KeyFileRefused",
    "KeyFilters",
    "NamedAlias",
    "Note",
    "ReplacementRefused",
    "SealError",
    "SurfaceConflict",
    "alias_family",
    "alias_link",
    "alias_of",
    "candidate_pairs_read",
    "check_export_passphrase",
    "conflicts_as_dicts",
    "entity_decisions",
    "entity_get",
    "entity_merge",
    "entity_names",
    "entity_page",
    "entity_read",
    "entity_shown",
    "entity_relabel",
    "entity_split",
    "entity_update",
    "entity_withdraw",
    "export_filename",
    "keys_export",
    "keys_import",
    "known_surfaces",
    "link_candidates_read",
    "normalise_surface",
    "project_keys_delete",
    "pseudonyms_draw_ahead",
    "read_sealed",
    "pseudonym_digest",
    "release_aliases",
    "replaced_groups",
    "named_apart",
    "replacements",
    "review_note_write",
    "review_notes",
    "review_notes_read",
    "undo_note_read",
    "undo_note_write",
    "undo_notes_delete",
    "search_recall",
    "search_remember",
    "span_relabel",
    "suggestions_for",
    "surface_choice",
    "surface_choices",
    "surface_decide",
    "surface_digest",
    "write_sealed",
]
