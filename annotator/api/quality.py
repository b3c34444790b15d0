"""Measured quality in the API: the numbers of the quality page, as JSON (leads and admins).

GET /api/projects/{slug}/quality/?language=en&run=12   (run: a run's id, or "import")

Counts and scores only, never text. See annotator.selectors.quality for what is measured.
A kappa on too small a sample is null, and `kappa_reason` says why (the page says the same).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from annotator.api.fields import StrictCharField
from annotator.api.serializers import LANGUAGE_CODE
from annotator.api.views import ProjectScoped
from annotator.models import PreannotationRun, Project
from annotator.permissions import Can
from annotator.selectors.quality import (
    IMPORT_SCOPE,
    RunScope,
    learned_proposals,
)
from annotator.services.quality import project_quality


class QualityQuery(serializers.Serializer[Any]):
    language = serializers.RegexField(
        LANGUAGE_CODE.pattern,
        required=False,
        max_length=16,
        # As the document list's filter: a language the project does not have scores nothing.
        help_text="Only this language (one of the project's; another has no documents)",
    )
    run = serializers.RegexField(
        r"^(import|[1-9][0-9]{0,17})$",
        required=False,
        max_length=18,
        help_text='Only the proposals of this run (its id), or "import" for imported spans',
    )

    def project(self) -> Project:
        return self.context["view"].get_project()  # type: ignore[no-any-return]

    def validate_run(self, run: str) -> RunScope:
        if run == IMPORT_SCOPE:
            return "import"
        if not PreannotationRun.objects.filter(project=self.project(), pk=int(run)).exists():
            # An id that names nothing: 404, as a run's own URL would answer.
            raise NotFound(f"No run {run} in this project.")
        return int(run)


class QualityScoresSerializer(serializers.Serializer[Any]):
    precision = serializers.FloatField()
    recall = serializers.FloatField()
    f1 = serializers.FloatField()
    gold = serializers.IntegerField(help_text="Final spans")
    pred = serializers.IntegerField(help_text="Proposals")
    matched_gold = serializers.IntegerField(help_text="Final spans found")
    matched_pred = serializers.IntegerField(help_text="Proposals that were right")


class QualityAveragedSerializer(serializers.Serializer[Any]):
    precision = serializers.FloatField()
    recall = serializers.FloatField()
    f1 = serializers.FloatField()


class QualityLabelScoresSerializer(serializers.Serializer[Any]):
    label = StrictCharField()  # type: ignore[assignment]
    scores = QualityScoresSerializer()


class QualityModeScoresSerializer(serializers.Serializer[Any]):
    labels = QualityLabelScoresSerializer(many=True)
    micro = QualityScoresSerializer(help_text="Every label summed")
    macro = QualityAveragedSerializer(help_text="The mean over the labels that have final spans")


class QualitySourceScoresSerializer(serializers.Serializer[Any]):
    source = StrictCharField(  # type: ignore[assignment]
        help_text='regex, ner, known, import, or "all"'
    )
    proposed = serializers.IntegerField()
    strict = QualityModeScoresSerializer(help_text="Right only with the final start, end and label")
    relaxed = QualityModeScoresSerializer(
        help_text="Right when overlapping a final span of its label"
    )


class QualityLanguageScoresSerializer(serializers.Serializer[Any]):
    language = StrictCharField()
    documents = serializers.IntegerField()
    strict = QualityScoresSerializer()
    relaxed = QualityScoresSerializer()


class QualityMissSerializer(serializers.Serializer[Any]):
    label = StrictCharField()  # type: ignore[assignment]
    gold = serializers.IntegerField(help_text="Final spans of the label")
    missed = serializers.IntegerField(
        help_text="Final spans that no proposal of the same label overlapped"
    )
    strict_recall = serializers.FloatField()
    relaxed_recall = serializers.FloatField()


class QualityPreannotationSerializer(serializers.Serializer[Any]):
    documents = serializers.IntegerField(help_text="Finished documents judged")
    sources = QualitySourceScoresSerializer(many=True)
    languages = QualityLanguageScoresSerializer(many=True)
    misses = QualityMissSerializer(many=True)


KAPPA_HELP = "Token-level Cohen's kappa; null when the sample is too small (kappa_reason)"
KAPPA_REASON_HELP = "Why kappa is null: the sample is too small; null when kappa is given"


class QualityAgreementRowSerializer(serializers.Serializer[Any]):
    key = StrictCharField(help_text='The label or language ("" for everything)')
    pairs = serializers.IntegerField()
    tokens = serializers.IntegerField(
        help_text="Words compared; for a label, the words either annotator gave that label"
    )
    kappa = serializers.FloatField(source="reported_kappa", allow_null=True, help_text=KAPPA_HELP)
    kappa_reason = StrictCharField(allow_null=True, help_text=KAPPA_REASON_HELP)
    f1 = serializers.FloatField(help_text="Relaxed span F1")
    first = serializers.IntegerField(help_text="Spans of the first annotator")
    second = serializers.IntegerField(help_text="Spans of the second annotator")


class QualityAgreementWeekSerializer(serializers.Serializer[Any]):
    week = serializers.DateField(help_text="Its Monday")
    pairs = serializers.IntegerField()
    kappa = serializers.FloatField(source="reported_kappa", allow_null=True, help_text=KAPPA_HELP)
    kappa_reason = StrictCharField(allow_null=True, help_text=KAPPA_REASON_HELP)
    f1 = serializers.FloatField()


class QualityConfusionSerializer(serializers.Serializer[Any]):
    first = StrictCharField(allow_null=True, help_text="The first annotator's label (null: none)")
    second = StrictCharField(
        allow_null=True, help_text="The second annotator's label there (null: none)"
    )
    spans = serializers.IntegerField()


class QualityLearnedSerializer(serializers.Serializer[Any]):
    language = StrictCharField()
    run = serializers.IntegerField(
        allow_null=True, help_text="The newest run that ran the learned model (null: none)"
    )
    model_version = StrictCharField(help_text='As the run recorded it, e.g. "v3"')
    proposed = serializers.IntegerField(
        help_text="Spans that run stored with learned among their sources"
    )
    alone = serializers.IntegerField(help_text="Of those, the ones no other source proposed")
    accepted = serializers.IntegerField(help_text="Of those proposed, accepted by a person")
    note = StrictCharField(help_text="Why there is nothing to count, or empty")


class QualityAgreementSerializer(serializers.Serializer[Any]):
    pairs = serializers.IntegerField()
    tokens = serializers.IntegerField()
    overall = QualityAgreementRowSerializer(allow_null=True, help_text="null: no pair finished yet")
    labels = QualityAgreementRowSerializer(many=True)
    languages = QualityAgreementRowSerializer(many=True)
    weeks = QualityAgreementWeekSerializer(many=True)
    confusion = QualityConfusionSerializer(
        many=True,
        help_text="In spans: which label the second annotator gave where the first gave which",
    )


class QualitySerializer(serializers.Serializer[Any]):
    language = StrictCharField(allow_null=True)
    run = StrictCharField(allow_null=True, help_text='A run\'s id, "import", or null: every one')
    agreement = QualityAgreementSerializer()
    preannotation = QualityPreannotationSerializer()
    learned = QualityLearnedSerializer(
        many=True, help_text="Per language, what the learned model proposed in runs"
    )


class QualityView(ProjectScoped):
    """Agreement between annotators, and pre-annotation against the final decisions."""

    required_capability = Can.REVIEW
    query_serializer = QualityQuery

    @extend_schema(responses={200: QualitySerializer})
    def get(self, request: Request, slug: str) -> Response:
        project = self.get_project()
        measured = project_quality(
            project, language=self.query.get("language"), run=self.query.get("run")
        )
        answer = {
            "language": measured.language,
            "run": measured.run,
            "agreement": measured.agreement,
            "preannotation": measured.preannotation,
            "learned": learned_proposals(project),
        }
        return Response(QualitySerializer(answer).data)
