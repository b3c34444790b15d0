"""The names pages show for a project's language codes: "German (de)" for `de`, the code itself
for one without a name here. Vocabulary for every layer; it reads nothing."""

from __future__ import annotations

LANGUAGE_NAMES = {
    "ar": "Arabic",
    "de": "German",
    "en": "English",
    "es": "Spanish",
    "fa": "Persian",
    "fr": "French",
    "he": "Hebrew",
    "it": "Italian",
    "nl": "Dutch",
    "pt": "Portuguese",
    "ru": "Russian",
    "tr": "Turkish",
    "ur": "Urdu",
}


def language_label(code: str) -> str:
    name = LANGUAGE_NAMES.get(code.split("-")[0])
    return f"{name} ({code})" if name else code
