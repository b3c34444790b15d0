"""The pages' forms and the choices they offer: they read and check input, and nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from django import forms

from annotator.languages import language_label
from annotator.models import DECISION_CHOICES, SOURCE_CHOICES, DocumentStatus
from pseudonymizer.formats import FORMATS
from pseudonymizer.vocabulary import MAX_KEEP_REASON


def language_choices(languages: Sequence[str]) -> list[tuple[str, str]]:
    return [(code, language_label(code)) for code in languages]


def form_errors(form: forms.Form) -> str:
    """A refused form's messages as one sentence for a notice."""
    return " ".join(str(error) for errors in form.errors.values() for error in errors)


class DocumentFilterForm(forms.Form):
    """The filters of the document list; every field may be left empty."""

    language = forms.ChoiceField(required=False)
    status = forms.ChoiceField(
        required=False, choices=[("", "Any status"), *DocumentStatus.choices]
    )
    q = forms.CharField(
        required=False,
        max_length=255,
        label="External id",
        widget=forms.TextInput(attrs={"type": "search", "placeholder": "contains…"}),
    )

    def __init__(self, *args: Any, languages: Sequence[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = cast(forms.ChoiceField, self.fields["language"])
        field.choices = [("", "Any language"), *language_choices(languages)]

    def filters(self) -> dict[str, str]:
        """The filters that passed validation; a bad one is dropped, not applied."""
        self.is_valid()
        cleaned = getattr(self, "cleaned_data", {})
        return {name: value for name, value in cleaned.items() if value}


class IdsField(forms.TypedMultipleChoiceField):
    """Ids of rows picked on a page: any positive integer (the service checks they exist)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(coerce=int, **kwargs)

    def valid_value(self, value: Any) -> bool:
        text = str(value)
        return text.isascii() and text.isdigit() and 0 < len(text) < 19


class AssignForm(forms.Form):
    """Documents picked on the list, and the member to give them to ("" for nobody)."""

    documents = IdsField(error_messages={"required": "Pick at least one document."})
    assignee = forms.ChoiceField(required=False, label="Assign to")

    def __init__(self, *args: Any, members: Sequence[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["assignee"]).choices = [
            ("", "Nobody"),
            *((name, name) for name in members),
        ]

    def clean_documents(self) -> list[int]:
        return list(self.cleaned_data["documents"])


class SpanActionForm(forms.Form):
    """One action on one span from the document page, with the span's version as read."""

    ACTIONS = ("accept", "reject", "label", "decide", "flag", "move")

    version = forms.IntegerField(min_value=1, max_value=2**31 - 1)
    action = forms.ChoiceField(choices=[(a, a) for a in ACTIONS])
    label = forms.ChoiceField(required=False)
    decision = forms.ChoiceField(required=False, choices=DECISION_CHOICES)
    keep_reason = forms.CharField(required=False, max_length=MAX_KEEP_REASON, label="Why keep it")
    replacement = forms.CharField(required=False, max_length=500, label="Pseudonym")
    comment = forms.CharField(required=False, max_length=5000, label="Comment for the lead")
    # "move": one edge by one character or word, outwards (extend) or inwards.
    edge = forms.ChoiceField(required=False, choices=[("start", "start"), ("end", "end")])
    unit = forms.ChoiceField(required=False, choices=[("char", "character"), ("word", "word")])
    extend = forms.BooleanField(required=False)
    # The person confirmed deciding less than a word (the notice's "Decide it as it is").
    confirm = forms.BooleanField(required=False)

    def __init__(self, *args: Any, labels: Sequence[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["label"]).choices = [(name, name) for name in labels]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        action = data.get("action")
        needed = {"label": "label", "decide": "decision", "flag": "comment", "move": "edge"}.get(
            action or ""
        )
        if action == "move" and not data.get("unit"):
            self.add_error("unit", "give a unit (char or word) to move an edge by")
        if needed and not data.get(needed):
            self.add_error(needed, f"give a {needed} to {action}")
        return data


class SpanAddForm(forms.Form):
    """A span a person marks on the page: code-point offsets (the page converts from UTF-16)."""

    start = forms.IntegerField(min_value=0, max_value=2**31 - 1)
    end = forms.IntegerField(min_value=1, max_value=2**31 - 1)
    label = forms.CharField(max_length=64)
    confirm = forms.BooleanField(required=False)


class BulkForm(forms.Form):
    """Accept every proposal of a label, or reject every proposal of a source."""

    status = forms.ChoiceField(choices=[("accepted", "accept"), ("rejected", "reject")])
    label = forms.CharField(required=False, max_length=64)
    source = forms.ChoiceField(required=False, choices=[("", "any"), *SOURCE_CHOICES])

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("label") and not data.get("source"):
            raise forms.ValidationError("choose a label or a source")
        return data


def import_format_choices() -> list[tuple[str, str]]:
    return [("auto", "Detect from the file"), *((name, name) for name in FORMATS)]


class ImportForm(forms.Form):
    file = forms.FileField(label="File", allow_empty_file=True)
    format = forms.ChoiceField(label="Format", initial="auto")
    language = forms.ChoiceField(
        label="Language",
        required=False,
        help_text="Used for every document that does not name its own language.",
    )

    def __init__(self, *args: Any, languages: Sequence[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["format"]).choices = import_format_choices()
        language = cast(forms.ChoiceField, self.fields["language"])
        language.choices = [("", "From the file"), *language_choices(languages)]
