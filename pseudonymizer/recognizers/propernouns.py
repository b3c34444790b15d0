"""Names no model tagged: "Stoke-on-Trent", "Lichfield Reynolds", "UNISON", "thornbury".

Small NER models miss rare place names, firms and acronyms, and what they miss is exactly
what identifies. The `recall` profile proposes, as MISC with a low score, the words a
language's common vocabulary does not explain (`pseudonymizer.recognizers.wordlists`), for
the annotator to accept or reject. It is a fallback (see `recognize_all`): what NER or a
pattern found in the same place keeps its own label. By the shape of the word:

- a run of capitalised words inside a sentence ("met Lichfield Reynolds in"): a name more
  often than not, proposed unless every word is a function word, a title, a date word
  ("Jan", "Tonight"),
  the vocabulary of institutions and procedure ("the Court of Appeal", "the Government",
  "Section"), or shorthand ("Pt", "Lasix", "RT"); a run with a statute word ("the Theft Act
  1968", "Criminal Code", "Protocol") is public text and left out;
- a run that ends at a colon, with only capitalised words and the words that join them
  before it on its line, is a heading or a form's field ("Vital Signs:", "History of
  Present Illness:"): only its unknown words count (not inside a line: "via CNN: ..."
  names its source); in a clinical note, a run alone on its line ("Physical Exam", "(2)
  General Appearance") is a heading too, unless all its words are names (a signature);
- a capitalised word that opens a sentence, a line or a post ("Krithika is here"): only
  when it is a known name ("Thornbury", not an everyday word like "Will") or a word the
  vocabulary does not hold at all, three letters or more;
- a word in capitals is read as a capitalised word ("SOCHI", "FACEBOOK", "the PKK’s"),
  except in a clinical note (`wordlists.is_clinical`: a text of which 3% of the words are
  clinical shorthand), whose capitals are shorthand ("NSR", "CXR") or headings ("PLAN", "TABLET")
  far more often than names: there only a known name, a place, a word the vocabulary does
  not hold, or, inside a sentence, a short one past its everyday words (an acronym: "NSW",
  "QPR") is proposed, three letters or more at the start of a line;
- a word in lower case ("met thornbury"): only a known name that is no common word of the
  language at all (names people write in lower case, in posts and notes), at a lower score
  (0.2); a place of the list in lower case ("back in gaza", "flew to new york") is LOC at
  0.3, unless the place is also an everyday word ("turkey", "nice"); a given name or
  surname right after a word for a relative or a carer ("wife mary", "dr thornbury",
  "son john") is PER at 0.5, unless it is an everyday word ("son will be").

Scripts without capitals (Arabic) get nothing from this recognizer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pseudonymizer.recognizers.base import POSSESSIVE, PatternRecognizer, Word
from pseudonymizer.recognizers.dates import is_date_word
from pseudonymizer.recognizers.sifting import clinical_text
from pseudonymizer.recognizers.titles import TITLES
from pseudonymizer.recognizers.wordlists import COMMON as COMMON_WORD
from pseudonymizer.recognizers.wordlists import (
    EVERYDAY,
    NAME,
    SHORTHAND,
    UNKNOWN,
    Kind,
    is_place,
    kind,
    names,
    place_starts,
    ranks,
)
from pseudonymizer.spans import Span

LABEL = "MISC"
PLACE_LABEL = "LOC"
# The language's most frequent words (pronouns, verbs, "like", "what", "how") capitalise
# for emphasis in posts: a run of them alone names no one ("Will" and "May" go to the
# model); beside another word they stay in the name ("High House Farm").
_TOP = 200
# Every label it proposes: capitalised guesses, places in lower case, cued names.
LABELS = (LABEL, PLACE_LABEL, "PER")
# Words for a relative or a carer, after which a name in lower case is a person's.
_PERSON_CUES = frozenset(
    """wife husband son daughter mother father mom dad mum brother sister sibling friend
    boyfriend girlfriend partner fiance fiancee fiancé fiancée aunt uncle niece nephew
    cousin grandson granddaughter grandmother grandfather grandma grandpa dr doctor nurse
    mr mrs ms miss named femme mari fils fille mère père frère sœur soeur ami amie
    docteur cousine oncle tante""".split()
)
# A name after such a cue is read as a name unless it is among this many most frequent
# words ("son will be", "wife may call").
_CUED_RANK = 200
# A colon after a run that opens a line: a heading or a form's field ("Vital Signs:"), not a
# name, unless a word of it is one.
_HEADING = re.compile(r"[ \t]*:(?!//)")
# The words that may name someone in a heading ("Vital Signs:", "Physical Exam").
_IN_A_HEADING = frozenset({UNKNOWN})
_WORD_CHAR = re.compile(r"\w")
_HEADING_WORDS = re.compile(r"[^\W\d_][\w'’\-]*")
_HEADING_STOPS = re.compile(r"[.:;!?]")
_JOINING = frozenset("of and the for to in on at de du des la le et".split())
SOURCE = "regex"

# Lower-cased words that are capitalised without naming anyone.
COMMON = frozenset(
    {
        # function words (English, French)
        "the", "a", "an", "in", "on", "at", "to", "by", "with", "from", "as", "this", "that",
        "these", "those", "his", "her", "their", "its", "our", "it", "he", "she", "they", "we",
        "i", "you", "there", "here", "when", "where", "while", "after", "before", "since", "if",
        "but", "and", "or", "not", "no", "yes", "all", "any", "each", "every", "some", "such",
        "other", "another", "of", "for", "le", "la", "les", "un", "une", "des", "du", "de",
        "et", "ou", "en", "au", "aux", "il", "elle", "ils", "elles", "nous", "vous", "je",
        # days and months (dates are found whole elsewhere)
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "january", "february", "march", "april", "may", "june", "july", "august", "september",
        "october", "november", "december", "lundi", "mardi", "mercredi", "jeudi", "vendredi",
        "samedi", "dimanche",
        # institutions and procedure
        "court", "courts", "government", "governments", "chamber", "grand", "commission",
        "committee", "parliament", "ministry", "minister", "police", "army", "state", "states",
        "security", "supreme", "high", "constitutional", "administrative", "appeal", "appeals",
        "cassation", "first", "second", "third", "fourth", "fifth", "section", "sections",
        "instance", "district", "regional", "county", "assize", "criminal", "civil", "military",
        "justice", "interior", "foreign", "affairs", "home", "department", "national",
        "federal", "central", "general", "registry", "registrar", "council", "ministers",
        "assembly", "human", "rights", "european", "public", "prosecutor", "prosecutors",
        "office", "service", "board", "parole", "magistrates", "magistrate", "tribunal",
        "division", "bench", "family", "labour", "social", "insurance", "agency", "authority",
        "authorities", "republic", "united", "kingdom", "europe", "union", "nations",
        "protection", "fundamental", "freedoms", "freedom", "applicant", "applicants",
        "respondent", "defendant", "plaintiff", "claimant", "appellant", "petitioner",
        "complainant", "facts", "procedure", "circumstances", "case", "cases", "judgment",
        "decision", "decisions", "opinion", "dissenting", "concurring", "separate", "reasons",
        "holds", "unanimously", "declares", "dismisses", "president", "vice-president",
        "deputy", "agent", "counsel", "adviser", "advisers", "delegate", "lawyer", "solicitor",
        "barrister", "judge", "judges", "note", "notes", "part", "chapter", "paragraph",
        "annex", "schedule", "relevant", "domestic", "international", "practice", "complaints",
        "alleged", "violation", "application", "applications", "admissibility", "merits",
        "cour", "gouvernement", "chambre", "ministère", "ministre", "conseil",
        "requérant", "requérante", "procédure", "faits", "droit", "arrêt",
        "décision", "monsieur", "madame", "mademoiselle", "maître", "président", "juge",
    }
)  # fmt: skip
# Words that make a run the name of a statute.
STATUTES = frozenset(
    {"act", "acts", "code", "codes", "convention", "protocol", "law", "laws", "regulation",
     "regulations", "rule", "rules", "directive", "treaty", "constitution", "article",
     "articles", "decree", "order", "loi", "décret", "ordonnance", "règlement", "charter",
     "bill", "statute"}
)  # fmt: skip
_TITLE_WORDS = frozenset(title.lower() for title in TITLES)


def _key(word: str) -> str:
    return POSSESSIVE.sub("", word).lower()


class ProperNounRecognizer(PatternRecognizer):
    """Proposes MISC for the words the vocabulary does not explain (source "regex", score 0.3;
    0.2 for a name in lower case)."""

    name = "proper-nouns"
    fallback = True  # a guess: only where no other recognizer found anything

    def recognize(self, texts: Sequence[str], language: str) -> list[list[Span]]:
        return [self.recognize_one(text, language) for text in texts]

    def recognize_one(self, text: str, language: str = "en") -> list[Span]:
        words = self.words(text)
        clinical = clinical_text(text, language)
        starts, known, cues = place_starts(), names(), _PERSON_CUES
        spans: list[Span] = []
        index = 0
        while index < len(words):
            if words[index][0] and text[words[index][0] - 1] in "@#":
                index += 1  # a handle's or a hashtag's letters: the patterns' to find
                continue
            if not words[index][2][0].isupper():
                # Most words are neither places nor names: three set lookups pass them by.
                lowered = words[index][2].lower()
                place = lowered in starts and _lower_case_place(text, words, index)
                if place:
                    start, end = words[index][0], words[index + place - 1][1]
                    spans.append(Span(start, end, PLACE_LABEL, score=0.3, source=SOURCE))
                    index += place
                    continue
                if (
                    index
                    and words[index - 1][2].lower() in cues
                    and _cued_name(text, words[index - 1], words[index], language)
                ):
                    start, end, _ = words[index]
                    spans.append(Span(start, end, "PER", score=0.5, source=SOURCE))
                    index += 1
                    continue
                if _key(lowered) in known and _lower_case_name(words[index][2], language):
                    start, end, _ = words[index]
                    spans.append(Span(start, end, LABEL, score=0.2, source=SOURCE))
                index += 1
                continue
            last = index
            while (
                last + 1 < len(words)
                and text[words[last][1] : words[last + 1][0]] == " "
                and words[last + 1][2][0].isupper()
                and text[words[last + 1][0] - 1] not in "@#"
            ):
                last += 1
            run = words[index : last + 1]
            opening = self.starts_sentence(text, run[0][0])
            keys = [_key(word) for _, _, word in run]
            if not any(key in STATUTES for key in keys):
                heading: frozenset[Kind] | None = None
                if _HEADING.match(text, run[-1][1]) and _heads_a_line(text, run[0][0]):
                    heading = _IN_A_HEADING  # "Vital Signs:", "History of Present Illness:"
                elif (
                    clinical
                    and _fills_a_line(text, run[0][0], run[-1][1])
                    and not _only_names(run, language)
                ):
                    heading = _IN_A_HEADING  # "Vital Signs", not a signature "Owen Gallagher"
                spans += self._run(run, opening, language, heading=heading, clinical=clinical)
            index = last + 1
        return spans

    def _run(
        self,
        run: list[Word],
        opening: bool,
        language: str,
        *,
        heading: frozenset[Kind] | None = None,
        clinical: bool = False,
    ) -> list[Span]:
        """The span of a run of capitalised words, if some word of it may be a name;
        `heading`: the kinds of word that may be one when the run is a heading."""
        marks = [
            _may_name(word, language, opening=opening and position == 0, clinical=clinical)
            and (heading is None or kind(word, language) in heading)
            for position, (_, _, word) in enumerate(run)
        ]
        if not any(marks) or all(
            _top(word, language) for (_, _, word), mark in zip(run, marks, strict=True) if mark
        ):
            return []  # "Like my twin", "You're my wonderwall": emphasis, not a name
        first = marks.index(True)
        last = len(run) - 1
        # A pronoun or a function word after the name is not part of it ("Mzansi I"); the
        # words of institutions are ("Liberation Army", "the Scottish Minister").
        while last > first and not marks[last] and _key(run[last][2]) in _TRAILING:
            last -= 1
        # A word that opens the sentence and names nothing is not part of the name that
        # follows it ("Yesterday Lichfield Reynolds"); neither are leading function words.
        while first < len(run) - 1 and _key(run[first][2]) in _LEADING:
            first += 1
        if opening and first == 0 and not marks[0]:
            first = 1
        run = run[first : last + 1]
        if not run:
            return []
        end = run[-1][1]
        possessive = POSSESSIVE.search(run[-1][2])
        if possessive and possessive.start() > 0:
            end = run[-1][0] + possessive.start()
        return [Span(run[0][0], end, LABEL, score=0.3, source=SOURCE)]


_LEADING = COMMON | _TITLE_WORDS
_TRAILING = frozenset(
    "i a an the of and or to in on at by with from for as is it we you he she they my me "
    "im i'm i'll i've i'd".split()
)


def _only_names(run: list[Word], language: str) -> bool:
    """Whether every word of two letters or more of `run` is a name or unknown: a signature
    ("Owen M Gallagher"), not a heading ("Vital Signs": "Vital" is a surname too)."""
    return all(kind(word, language) in (NAME, UNKNOWN) for _, _, word in run if len(word) > 1)


def _fills_a_line(text: str, start: int, end: int) -> bool:
    """Whether only a list's marks or punctuation stand beside `text[start:end]` on its line
    ("Vital Signs", "(2) Physical Exam"): a heading of a note."""
    line_end = text.find("\n", end)
    after = text[end : len(text) if line_end < 0 else line_end]
    before = text[text.rfind("\n", 0, start) + 1 : start]
    return not _WORD_CHAR.search(after) and not _WORD_CHAR.search(before.strip("()0123456789."))


def _heads_a_line(text: str, start: int) -> bool:
    """Whether only capitalised words and the words that join them ("History of") stand
    between the start of the line and `start`."""
    before = text[text.rfind("\n", 0, start) + 1 : start]
    return all(
        word[0].isupper() or word.lower() in _JOINING for word in _HEADING_WORDS.findall(before)
    ) and not _HEADING_STOPS.search(before)


def _top(word: str, language: str) -> bool:
    """One of the language's most frequent words, not in capitals ("Like", "What")."""
    return not word.isupper() and ranks(language).get(_key(word), _TOP) < _TOP


def _may_name(word: str, language: str, *, opening: bool, clinical: bool = False) -> bool:
    """Whether a capitalised word may be (part of) a name; `clinical`: in a text full of
    clinical shorthand, where words in capitals are shorthand or headings."""
    folded = _key(word)
    if folded in COMMON or folded in _TITLE_WORDS or is_date_word(word):
        return False
    found = kind(word, language)
    if found is SHORTHAND:
        return False
    letters = sum(char.isalpha() for char in word)
    if word.isupper() and letters > 1 and clinical:
        if opening:
            return found is NAME or (found is UNKNOWN and letters >= 3)
        # An acronym: "the UN", "QPR", "NSW" (a short word past the everyday ones).
        short = letters <= 3 and ranks(language).get(_key(word), EVERYDAY) >= EVERYDAY
        return found in (NAME, UNKNOWN) or (found is COMMON_WORD and short)
    if opening:
        return found is NAME or (found is UNKNOWN and letters >= 3)
    return True


def _lower_case_place(text: str, words: list[Word], index: int) -> int:
    """How many words from `index` on make a place of the list written in lower case
    ("gaza", "new york"), 0 for none; the longest place wins."""
    most = place_starts().get(words[index][2].lower(), 0)
    for count in range(min(most, len(words) - index), 0, -1):
        last = index + count - 1
        if any(
            text[words[i][1] : words[i + 1][0]] != " " or not words[i + 1][2].islower()
            for i in range(index, last)
        ):
            continue
        if is_place(text[words[index][0] : words[last][1]]):
            return count
    return 0


def _cued_name(text: str, cue: Word, word: Word, language: str) -> bool:
    """A given name or surname in lower case right after a word for a relative or a
    carer ("wife mary", "dr thornbury", "son john"): not an everyday word ("son will")."""
    if cue[2].lower() not in _PERSON_CUES or text[cue[1] : word[0]].strip(" .'’s"):
        return False
    written = word[2]
    if not written.islower() or len(written) < 3 or kind(written, language) is SHORTHAND:
        return False
    rank = ranks(language).get(_key(written))
    return _key(written) in names() and (rank is None or rank >= _CUED_RANK)


def _lower_case_name(word: str, language: str) -> bool:
    """A known name written in lower case that no common word of `language` spells."""
    found = _key(word)
    return (
        word.islower()
        and len(word) >= 3
        and found in names()
        and found not in ranks(language)
        and kind(word, language) is NAME
    )
