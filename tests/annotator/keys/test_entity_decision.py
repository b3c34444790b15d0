"""An entity's decision is one of the engine's, as a span's is: the database refuses others."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from annotator.keys.models import DECISION_CHOICES, Entity
from pseudonymizer.vocabulary import Decision
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


def test_the_choices_are_the_engines_decisions() -> None:
    assert [value for value, _ in DECISION_CHOICES] == [d.value for d in Decision]
    assert Entity._meta.get_field("decision").choices == DECISION_CHOICES


def test_a_decision_outside_the_vocabulary_is_refused_by_the_database() -> None:
    project = ProjectFactory()
    entity = Entity.objects.create(project_id=project.pk, label="PER", decision="keep")
    with pytest.raises(IntegrityError), transaction.atomic():
        Entity.objects.filter(pk=entity.pk).update(decision="forget")
    assert Entity.objects.get(pk=entity.pk).decision == "keep"
