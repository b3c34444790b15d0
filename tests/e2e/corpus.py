"""The end-to-end suite's corpus: six short posts in English, French and Arabic, written for it,
with every identifier in them and what a careful annotator decides for each.

What each text puts in the way: an emoji with a skin tone, a flag, CRLF line ends, a combining
accent, right-to-left Arabic with Latin names and addresses inside, e-mail addresses that hold
a person's name, and one person (Moshe Chaya) named in every language.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

# The person named in every language: one pseudonym everywhere is the correspondence table's
# promise, and the release must show it.
CROSS_LANGUAGE = "Moshe Chaya"


@dataclass(frozen=True)
class Identifier:
    surface: str
    label: str
    decision: str = "pseudonymize"
    keep_reason: str = ""


@dataclass(frozen=True)
class Post:
    external_id: str
    language: str
    text: str
    identifiers: tuple[Identifier, ...]

    def occurrences(self) -> list[tuple[int, int, Identifier]]:
        """Where each identifier is in the text (code points), every occurrence."""
        found = []
        for identifier in self.identifiers:
            start = self.text.find(identifier.surface)
            assert start >= 0, f"{identifier.surface!r} is not in {self.external_id}"
            while start >= 0:
                found.append((start, start + len(identifier.surface), identifier))
                start = self.text.find(identifier.surface, start + 1)
        return sorted(found, key=lambda item: (item[0], item[1]))


def _ids(*pairs: tuple[str, str]) -> tuple[Identifier, ...]:
    return tuple(Identifier(surface, label) for surface, label in pairs)


POSTS = (
    Post(
        "en-1",
        "en",
        "Hi 👋🏽 all! Moshe Chaya wrote from moshe.chaya@example.org last night.\r\n"
        "He lives in Lyon and works for Globex Corporation. Call +44 7700 900123.",
        _ids(
            ("Moshe Chaya", "PER"),
            ("moshe.chaya@example.org", "EMAIL"),
            ("Lyon", "LOC"),
            ("Globex Corporation", "ORG"),
            ("+44 7700 900123", "PHONE"),
        ),  # fmt: skip
    ),
    Post(
        "en-2",
        "en",
        "Sarah Levi met Moshe Chaya in Manchester 👍🏽. Follow @sarah_levi88 for more.",
        _ids(
            ("Sarah Levi", "PER"),
            ("Moshe Chaya", "PER"),
            ("Manchester", "LOC"),
            ("@sarah_levi88", "USERNAME"),
        ),  # fmt: skip
    ),
    Post(
        "fr-1",
        "fr",
        "Moshe Chaya est arrivé à Marseille hier soir 🇫🇷.\r\n"
        "Élodie Martin l'attendait devant la Banque Laurentide. "
        "Écrivez à elodie.martin@exemple.fr.",
        _ids(
            ("Moshe Chaya", "PER"),
            ("Marseille", "LOC"),
            ("Élodie Martin", "PER"),
            ("Banque Laurentide", "ORG"),
            ("elodie.martin@exemple.fr", "EMAIL"),
        ),  # fmt: skip
    ),
    Post(
        "fr-2",
        "fr",
        "Re\u0301mi Dufour a parlé avec Moshe Chaya de Globex Corporation à Toulouse.",
        _ids(
            ("Re\u0301mi Dufour", "PER"),
            ("Moshe Chaya", "PER"),
            ("Globex Corporation", "ORG"),
            ("Toulouse", "LOC"),
        ),  # fmt: skip
    ),
    Post(
        "ar-1",
        "ar",
        "التقى عمر الهاشمي مع Moshe Chaya في القاهرة، وقال إن شركة Globex Corporation "
        "ستفتح مكتبا هناك. راسلوه على omar.hashimi@example.com",
        _ids(
            ("عمر الهاشمي", "PER"),
            ("Moshe Chaya", "PER"),
            ("القاهرة", "LOC"),
            ("شركة Globex Corporation", "ORG"),
            ("omar.hashimi@example.com", "EMAIL"),
        ),  # fmt: skip
    ),
    Post(
        "ar-2",
        "ar",
        "التقت سارة منصور مع Moshe Chaya في عمّان 🇯🇴\r\nتابعوها على @sara_mansour",
        _ids(
            ("سارة منصور", "PER"),
            ("Moshe Chaya", "PER"),
            ("عمّان", "LOC"),
            ("@sara_mansour", "USERNAME"),
        ),  # fmt: skip
    ),
)


def by_id(external_id: str) -> Post:
    return next(post for post in POSTS if post.external_id == external_id)


def as_jsonl() -> bytes:
    """The corpus as Cloak's own import format, CRLF inside the texts kept as they are."""
    lines = (
        json.dumps({"id": p.external_id, "lang": p.language, "text": p.text}, ensure_ascii=False)
        for p in POSTS
    )
    return ("\n".join(lines) + "\n").encode("utf-8")


def originals() -> set[str]:
    """Every identifier's surface that must not be in a release (none is kept)."""
    return {
        identifier.surface
        for post in POSTS
        for identifier in post.identifiers
        if identifier.decision != "keep"
    }
