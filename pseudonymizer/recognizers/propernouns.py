"""Proper nouns that NER did not tag: "Stoke-on-Trent", "Lichfield Reynolds", "UNISON".

Small NER models miss rare place names, firms and acronyms, and what they miss is exactly
what identifies. In Latin-script text a capitalised word in the middle of a sentence is a
name more often than not, so the `recall` profile proposes every run of capitalised words
that is not at the start of a sentence, as MISC with a low score, for the annotator to
accept or reject. It is a fallback (see `recognize_all`): what NER or a pattern found in
the same place keeps its own label. Left out:

- runs made only of words that capitalise without naming anyone: function words, titles,
  days and months, and the vocabulary of institutions and procedure ("the Court of
  Appeal", "the Government", "Section", "Rules");
- runs with a statute word ("the Theft Act 1968", "Criminal Code", "Protocol"): public text.

Scripts without capitals (Arabic) get nothing from this recognizer.
"""

from __future__ import annotations

from pseudonymizer.recognizers.base import POSSESSIVE, PatternRecognizer
from pseudonymizer.recognizers.titles import TITLES
from pseudonymizer.spans import Span

LABEL = "MISC"
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
    """Proposes MISC for capitalised words inside a sentence (source "regex", score 0.3)."""

    name = "proper-nouns"
    fallback = True  # a guess: only where no other recognizer found anything

    def recognize_one(self, text: str) -> list[Span]:
        words = self.words(text)
        spans: list[Span] = []
        index = 0
        while index < len(words):
            if not words[index][2][0].isupper():
                index += 1
                continue
            last = index
            while (
                last + 1 < len(words)
                and text[words[last][1] : words[last + 1][0]] == " "
                and words[last + 1][2][0].isupper()
            ):
                last += 1
            run = words[index : last + 1]
            if self.starts_sentence(text, run[0][0]):
                run = run[1:]
            keys = [_key(word) for _, _, word in run]
            if (
                run
                and not any(key in STATUTES for key in keys)
                and any(key not in COMMON and key not in _TITLE_WORDS for key in keys)
            ):
                while _key(run[0][2]) in COMMON or _key(run[0][2]) in _TITLE_WORDS:
                    run = run[1:]
                end = run[-1][1]
                possessive = POSSESSIVE.search(run[-1][2])
                if possessive and possessive.start() > 0:
                    end = run[-1][0] + possessive.start()
                spans.append(Span(run[0][0], end, LABEL, score=0.3, source=SOURCE))
            index = last + 1
        return spans
