"""The forms of the project pages: a new project (its languages and its labels chosen from a
preset, some left out, some added: never raw JSON) and a member (role and languages). They
read and check input; annotator.services.projects decides."""

from __future__ import annotations

import re
from typing import Any

from django import forms

from annotator.languages import LANGUAGE_NAMES, language_label
from annotator.models import Role
from pseudonymizer.schemas import PRESETS, label_names

# A custom label: "NAME" or "NAME: what it covers", one a line.
_CUSTOM = re.compile(r"^\s*(?P<name>[^\s:]{1,64})\s*(?::\s*(?P<description>.*))?$")


def preset_choices() -> list[tuple[str, str]]:
    return [(name, f"{name} ({len(schema['labels'])} labels)") for name, schema in PRESETS.items()]


def known_languages() -> list[tuple[str, str]]:
    return [(code, language_label(code)) for code in sorted(LANGUAGE_NAMES)]


class ProjectCreateForm(forms.Form):
    slug = forms.SlugField(
        max_length=64,
        help_text="Lower-case letters, digits and hyphens: the project's address",
    )
    name = forms.CharField(max_length=200, required=False)
    description = forms.CharField(max_length=2000, required=False, widget=forms.Textarea)
    languages = forms.MultipleChoiceField(
        choices=known_languages, widget=forms.CheckboxSelectMultiple
    )
    other_languages = forms.CharField(
        max_length=200,
        required=False,
        help_text="Other ISO 639-1 codes, separated by spaces or commas (e.g. sw, pl)",
    )
    preset = forms.ChoiceField(choices=preset_choices, initial="cloaked")
    labels = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="The preset's labels the annotators will use: untick those you do not need",
    )
    custom_labels = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text='Labels of your own, one a line: "NAME" or "NAME: what it covers"',
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        preset = self.data.get("preset") or self.initial.get("preset") or "cloaked"
        if preset not in PRESETS:
            preset = "cloaked"
        names = label_names(PRESETS[preset])
        field = self.fields["labels"]
        assert isinstance(field, forms.MultipleChoiceField)
        field.choices = [(name, name) for name in names]
        if not self.is_bound:
            self.initial["labels"] = names

    def clean_slug(self) -> str:
        return str(self.cleaned_data["slug"]).lower()

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        extra = re.split(r"[\s,]+", cleaned.get("other_languages") or "")
        cleaned["all_languages"] = [*cleaned.get("languages", []), *[c for c in extra if c]]
        custom: list[tuple[str, str]] = []
        for line in (cleaned.get("custom_labels") or "").splitlines():
            if not line.strip():
                continue
            match = _CUSTOM.match(line)
            if match is None:
                self.add_error("custom_labels", f"not a label: {line.strip()[:80]!r}")
                continue
            custom.append((match["name"], match["description"] or ""))
        cleaned["custom"] = custom
        if not cleaned.get("labels") and not custom:
            self.add_error("labels", "a project needs at least one label")
        return cleaned


class MemberForm(forms.Form):
    """Add a person to the project, or change their role and languages."""

    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Role.choices, initial=Role.ANNOTATOR)
    languages = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)
    password = forms.CharField(
        required=False,
        max_length=128,
        widget=forms.PasswordInput(render_value=False),
        help_text="Only to create an account for someone new to Cloak",
    )
    email = forms.EmailField(required=False)

    def __init__(self, *args: Any, languages: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["languages"]
        assert isinstance(field, forms.MultipleChoiceField)
        field.choices = [(code, language_label(code)) for code in languages]


class MemberRemoveForm(forms.Form):
    """Take a person out: asked first (the page says what it does), then confirmed."""

    username = forms.CharField(max_length=150)
    confirm = forms.BooleanField(required=False)
