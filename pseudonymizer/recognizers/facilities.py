"""Named facilities and institutions: "HM Prison Full Sutton", "Parkhurst prison",
"Opole Lubelskie Prison Penitentiary Commission", "Maison d'arrêt de Fresnes".

Where a person was held, treated, schooled or employed identifies them as surely as a date,
and small NER models miss these names when the proper noun is foreign or rare ("Edirne
F-type Prison"). A facility here is a head word (prison, hospital, school, police, ...)
joined to a proper name: capitalised words right before it, capitalised words right after
it, or "of"/"de"/"du" and capitalised words after it. A head word alone ("the prison"),
or with generic words only ("the Public Prosecutor's Office", "State Hospital"), is not
proposed: it names no particular place.

English and French; Arabic has no capitals to tell a name by, and is left to NER and to
the project's known entities.
"""

from __future__ import annotations

import bisect
import re

from pseudonymizer.recognizers.base import PatternRecognizer
from pseudonymizer.recognizers.titles import TITLES
from pseudonymizer.spans import Span, select_non_overlapping

LABEL = "ORG"
SOURCE = "regex"

HEADS = frozenset(
    {
        # English
        "prison", "prisons", "penitentiary", "jail", "gaol", "hospital", "clinic", "infirmary",
        "asylum", "school", "college", "university", "academy", "police", "constabulary",
        "gendarmerie", "station", "directorate", "ministry", "department", "office", "council",
        "commission", "bank", "company", "barracks", "regiment", "battalion", "brigade", "camp",
        "centre", "center", "institute", "foundation", "association", "party", "union",
        "church", "mosque", "synagogue", "factory", "plant", "mine", "hmp", "hmyoi",
        # French
        "maison", "hôpital", "clinique", "école", "lycée", "collège", "université",
        "commissariat", "caserne", "mairie", "préfecture", "banque", "société", "usine",
        "église", "mosquée", "parti", "syndicat", "fondation", "institut",
    }
)  # fmt: skip
# Capitalised words that name no particular place or body on their own.
GENERIC = frozenset(
    {
        "the", "a", "an", "this", "that", "his", "her", "their", "its", "our", "hm", "majesty's",
        "state", "public", "national", "federal", "central", "regional", "district",
        "provincial", "municipal", "city", "general", "supreme", "high", "chief", "military",
        "criminal", "civil", "administrative", "european", "international", "human", "rights",
        "prosecutor", "prosecutor's", "prosecutors", "security", "internal", "home", "foreign",
        "justice", "interior", "health", "education", "defence", "defense", "new", "old", "main",
        "local", "royal", "special", "second", "first", "third", "fourth", "fifth", "section",
        "le", "la", "les", "l", "du", "de", "des", "d", "et", "and", "of", "for", "in", "on",
        "at", "to", "by", "with", "from", "when", "after", "before", "while", "since",
        "mr", "mrs", "ms", "dr", "government", "court", "commission", "committee",
        "service", "services", "authority", "authorities", "board", "administration", "agency",
    }
)  # fmt: skip
# Words that may be capitalised before a name without being part of it.
_FUNCTION_WORDS = frozenset(
    {"the", "a", "an", "this", "that", "his", "her", "their", "its", "our", "le", "la", "les",
     "and", "of", "in", "on", "at", "to", "by", "with", "from", "when", "after", "before",
     "while", "since", "mr", "mrs", "ms", "dr"}
)  # fmt: skip
# French facilities named by a head of several words: "Maison d'arrêt de Fresnes".
_FRENCH_COMPOUND = re.compile(
    r"(?<!\w)(?:[Mm]aison d['’]arrêt|[Mm]aison centrale|[Cc]entre pénitentiaire"
    r"|[Cc]entre de détention|[Cc]entre hospitalier(?: universitaire)?)"
    r"(?: (?:de la|des|du|de)|(?: de l| d)['’]) ?(?=[^\W\d_])"
)
_LINKS = ("of the", "of", "de la", "de l'", "de l’", "des", "du", "de", "d'", "d’")

# A French elided article glued to the word: "l’Hôpital" is the word "Hôpital".
_ELIDED = re.compile(r"[cdjlmnst]['’](?=[^\W\d_])", re.IGNORECASE)
_MAX_NAME_WORDS = 4


def _capitalised(word: str) -> bool:
    return word[0].isupper()


def _specific(words: list[str]) -> bool:
    return any(word.lower() not in GENERIC and word.lower() not in HEADS for word in words)


class FacilityRecognizer(PatternRecognizer):
    """Proposes ORG for a facility head word joined to a proper name (source "regex", 0.8)."""

    name = "facilities"

    def recognize_one(self, text: str) -> list[Span]:
        words = []
        for start, end, word in self.words(text):
            elided = _ELIDED.match(word)
            if elided:
                start, word = start + elided.end(), word[elided.end() :]
            words.append((start, end, word))
        spans: list[Span] = []
        index = 0
        while index < len(words):
            found = self._facility_at(text, words, index)
            if found is None:
                index += 1
                continue
            first, last = found
            spans.append(Span(words[first][0], words[last][1], LABEL, score=0.8, source=SOURCE))
            index = last + 1
        starts = [word[0] for word in words]
        for match in _FRENCH_COMPOUND.finditer(text):
            first = bisect.bisect_left(starts, match.end())
            if first == len(words) or not _capitalised(words[first][2]):
                continue
            last = self._capitalised_run(text, words, first)
            spans.append(Span(match.start(), words[last][1], LABEL, score=0.8, source=SOURCE))
        return select_non_overlapping(spans, key=lambda s: (s.start - s.end, s.start))

    def _facility_at(
        self, text: str, words: list[tuple[int, int, str]], index: int
    ) -> tuple[int, int] | None:
        """(first, last) word indices of a facility whose first head word is `words[index]`."""
        if words[index][2].lower() not in HEADS:
            return None
        # The run of head words: "Prison Penitentiary Commission".
        head_end = index
        while (
            head_end + 1 < len(words)
            and self._adjacent(text, words, head_end)
            and (words[head_end + 1][2].lower() in HEADS)
        ):
            head_end += 1
        before = self._name_before(text, words, index)
        after = self._name_after(text, words, head_end)
        names = [w[2] for w in words[before:index]] + [
            w[2] for w in words[head_end + 1 : after + 1]
        ]
        if not names or not _specific(names):
            return None
        # A lower-case head word takes a name before it only ("Parkhurst prison").
        if not _capitalised(words[index][2]) and before == index:
            return None
        return before, max(after, head_end)

    @staticmethod
    def _name_word(word: str) -> bool:
        """A capitalised word that is not a person's title ("the Commission Mrs Liddy")."""
        return _capitalised(word) and word.rstrip(".") not in TITLES

    @staticmethod
    def _adjacent(text: str, words: list[tuple[int, int, str]], index: int) -> bool:
        """Whether only spaces (or a hyphen) lie between word `index` and the next."""
        between = text[words[index][1] : words[index + 1][0]]
        return between in {" ", "-", "\u00a0"}

    def _name_before(self, text: str, words: list[tuple[int, int, str]], index: int) -> int:
        first = index
        while (
            first > 0
            and index - first < _MAX_NAME_WORDS
            and self._adjacent(text, words, first - 1)
            and _capitalised(words[first - 1][2])
            and words[first - 1][2].lower() not in _FUNCTION_WORDS
            and not self.starts_sentence(text, words[first - 1][0])
        ):
            first -= 1
        # "In Edirne Prison" starts a sentence with "In", which is not part of the name.
        while first < index and words[first][2].lower() in _FUNCTION_WORDS:
            first += 1
        return first

    def _name_after(self, text: str, words: list[tuple[int, int, str]], head_end: int) -> int:
        position = words[head_end][1]
        rest = text[position : position + 12]
        for link in _LINKS:
            if rest.startswith(" " + link + " ") or (
                link.endswith(("'", "’")) and rest.startswith(" " + link)
            ):
                skip = len(link.split())
                start = head_end + skip
                if start + 1 < len(words) and self._name_word(words[start + 1][2]):
                    return self._capitalised_run(text, words, start + 1)
                return head_end
        if (
            head_end + 1 < len(words)
            and self._adjacent(text, words, head_end)
            and self._name_word(words[head_end + 1][2])
            and _capitalised(words[head_end][2])
        ):
            return self._capitalised_run(text, words, head_end + 1)
        return head_end

    def _capitalised_run(self, text: str, words: list[tuple[int, int, str]], start: int) -> int:
        last = start
        while (
            last + 1 < len(words)
            and last - start + 1 < _MAX_NAME_WORDS
            and self._adjacent(text, words, last)
            and _capitalised(words[last + 1][2])
            and words[last + 1][2].rstrip(".") not in TITLES
        ):
            last += 1
        return last
