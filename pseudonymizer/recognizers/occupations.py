"""Occupations: "consultant psychiatrist", "food science technician", "dairy worker", "infirmière".

A person's job narrows down who they are (a quasi-identifier in the TAB guidelines, PROFESSION
in clinical de-identification schemas such as MultiGraSCCo), and NER models do not tag it: it
is a common noun. An occupation here is a head word from a lexicon (English and French), with
up to two lower-case words right before it in English ("medical secretary"). Only the singular:
"police officers" or "nurses" describe a group, not one person.

Legal roles that every court decision names (lawyer, judge, prosecutor, agent, applicant) are
not in the lexicon: they describe the proceedings, not the person. Part of the `recall`
profile (the default), not of `precise`.
"""

from __future__ import annotations

import re

from pseudonymizer.recognizers.base import PatternRecognizer
from pseudonymizer.spans import Span

LABEL = "PROFESSION"
SOURCE = "regex"

HEADS = frozenset(
    {
        # English
        "technician", "worker", "administrator", "secretary", "psychiatrist", "psychologist",
        "nurse", "doctor", "physician", "surgeon", "dentist", "pharmacist", "midwife",
        "paramedic", "teacher", "lecturer", "student", "pupil", "engineer", "farmer", "driver",
        "mechanic", "electrician", "plumber", "builder", "labourer", "laborer", "carpenter",
        "cook", "chef", "waiter", "waitress", "cleaner", "shopkeeper", "salesman",
        "saleswoman", "businessman", "businesswoman", "merchant", "trader", "accountant",
        "manager", "clerk", "journalist", "reporter", "editor", "writer", "artist", "musician",
        "actor", "actress", "photographer", "soldier", "conscript", "sergeant", "corporal",
        "pilot", "sailor", "fisherman", "miner", "guard", "caretaker", "housewife", "pensioner",
        "imam", "priest", "pastor", "monk", "nun", "rabbi", "activist", "politician", "mayor",
        "councillor", "baker", "butcher", "tailor", "hairdresser", "barber", "architect",
        "economist", "programmer", "consultant", "receptionist", "interpreter", "translator",
        "firefighter", "veterinarian", "therapist", "counsellor", "counselor", "carer",
        "shepherd", "herdsman", "smuggler", "entrepreneur", "contractor", "officer",
        # French
        "infirmier", "infirmière", "médecin", "chirurgien", "chirurgienne", "pharmacien",
        "pharmacienne", "sage-femme", "enseignant", "enseignante", "professeur", "professeure",
        "instituteur", "institutrice", "étudiant", "étudiante", "lycéen", "lycéenne", "ouvrier",
        "ouvrière", "agriculteur", "agricultrice", "chauffeur", "mécanicien", "mécanicienne",
        "électricien", "plombier", "maçon", "menuisier", "cuisinier", "cuisinière", "serveur",
        "serveuse", "vendeur", "vendeuse", "commerçant", "commerçante", "comptable",
        "secrétaire", "journaliste", "militaire", "policier", "policière", "gendarme",
        "retraité", "retraitée", "chômeur", "chômeuse", "artisan", "boulanger", "boulangère",
        "boucher", "bouchère", "coiffeur", "coiffeuse", "architecte", "ingénieur", "ingénieure",
        "prêtre", "pasteur", "aide-soignant", "aide-soignante", "éducateur",
        "éducatrice", "psychologue", "psychiatre", "interprète", "traducteur", "traductrice",
    }
)  # fmt: skip
# Lower-case words that may stand before a head word without describing the job.
_NOT_MODIFIERS = frozenset(
    {
        "a", "an", "the", "his", "her", "their", "its", "my", "our", "your", "this", "that",
        "as", "was", "is", "be", "been", "being", "were", "are", "and", "or", "of", "to", "for",
        "by", "with", "from", "in", "on", "at", "who", "which", "whose", "another", "other",
        "one", "any", "no", "each", "every", "same", "said", "then", "also", "not", "but",
        "when", "where", "while", "after", "before", "had", "has", "have", "he", "she", "they",
        "him", "them", "it", "un", "une", "le", "la", "les", "du", "de", "des", "et", "ou",
        "comme", "est", "était", "son", "sa", "ses", "leur", "ce", "cette",
    }
)  # fmt: skip
_MAX_MODIFIERS = 2
_WORD = re.compile(r"[^\W\d_][\w\-]*")


class OccupationRecognizer(PatternRecognizer):
    """Proposes PROFESSION for an occupation (source "regex", score 0.6)."""

    name = "occupations"

    def recognize_one(self, text: str) -> list[Span]:
        words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
        spans: list[Span] = []
        for index, (_, end, word) in enumerate(words):
            if word.lower() not in HEADS:
                continue
            # "Nurse Ratched" is a title before a name, and a capitalised head in the middle
            # of a sentence is part of a name ("Chief Engineer Smith"), not a job.
            if word[0].isupper() and not self.starts_sentence(text, words[index][0]):
                continue
            first = index
            while (
                first > 0
                and index - first < _MAX_MODIFIERS
                and text[words[first - 1][1] : words[first][0]] == " "
                and words[first - 1][2].islower()
                and words[first - 1][2] not in _NOT_MODIFIERS
            ):
                first -= 1
            start = words[first][0]
            if spans and spans[-1].end > start:
                # "consultant psychiatrist": two head words, one occupation.
                start = spans.pop().start
            spans.append(Span(start, end, LABEL, score=0.6, source=SOURCE))
        return spans
