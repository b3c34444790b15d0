"""An address or a handle that holds a person's name follows that name's pseudonym:
`margaret.thornbury@x.org` becomes `sara.phelps@…` once Margaret Thornbury is Sara Phelps,
not `marilyn.garrett@…` beside her (issue 31). The name's words come from the key table
(`pseudonym_of`: a word of a decided name → the word of its pseudonym); this module only
rebuilds the identifier around them, separators, case and shape kept, digits renumbered.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from pseudonymizer.pseudonyms.determinism import seed_for
from pseudonymizer.pseudonyms.shape import (
    apply_case,
    camel_parts,
    case_of,
    replace_digits,
    to_ascii,
)

_EMAIL_LABELS = frozenset({"EMAIL"})
_HANDLE_LABELS = frozenset({"USERNAME"})
# A name-like run: letters, at least two.
_LETTERS = re.compile(r"[^\W\d_]{2,}")
_RUN = re.compile(r"[^\W\d_]+|\d+|.", re.DOTALL)


def name_words(surface: str, label: str) -> list[str]:
    """The words of `surface` (an e-mail's local part, a handle) that may be a person's name:
    what the caller looks up in the key table. [] for any other label."""
    body = _body(surface, label)
    if body is None:
        return []
    return [word for run in _LETTERS.findall(body) for word in camel_parts(run)]


def _body(surface: str, label: str) -> str | None:
    if label in _EMAIL_LABELS and "@" in surface:
        return surface.rpartition("@")[0]
    if label in _HANDLE_LABELS:
        return surface.lstrip("@")
    return None


def follow_names(
    surface: str,
    label: str,
    drawn: str,
    pseudonym_of: Callable[[str], str | None],
    secret: str,
) -> str | None:
    """`drawn` (the generator's candidate for `surface`) with its name part rebuilt from the
    pseudonyms of the names `surface` holds; None unless every name-like word of it is a word
    of a decided name (a half-followed address would pair one person's pseudonym with
    another's original). An e-mail keeps `drawn`'s domain; digits are renumbered."""
    body = _body(surface, label)
    if body is None:
        return None
    rng = random.Random(seed_for(secret, "follow", surface, drawn))
    out: list[str] = []
    followed = 0
    for run in _RUN.findall(body):
        if run.isdigit():
            out.append(replace_digits(rng, run))
            continue
        if not _LETTERS.fullmatch(run):
            out.append(run)
            continue
        for word in camel_parts(run):
            pseudonym = pseudonym_of(word)
            if pseudonym is None:
                return None
            if label in _EMAIL_LABELS or word.isascii():
                pseudonym = to_ascii(pseudonym)
            pseudonym = re.sub(r"[^\w]", "", pseudonym)
            if not pseudonym:
                return None
            out.append(apply_case(case_of(word), pseudonym))
            followed += 1
    if not followed:
        return None
    rebuilt = "".join(out)
    if label in _EMAIL_LABELS:
        return rebuilt + "@" + drawn.rpartition("@")[2]
    return surface[: len(surface) - len(body)] + rebuilt
