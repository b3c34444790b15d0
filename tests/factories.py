"""factory_boy factories; `.build()` where no row is needed."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from annotator.models import (
    Document,
    Membership,
    PreannotationRun,
    Project,
    Role,
    RunBatch,
    Span,
    SpanSource,
)
from pseudonymizer.schemas import preset


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", "correct-horse-battery")

    @factory.post_generation
    def _save(obj, create: bool, extracted: object, **kwargs: object) -> None:  # noqa: N805
        if create:
            obj.save()


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project

    slug = factory.Sequence(lambda n: f"project-{n}")
    name = factory.LazyAttribute(lambda o: o.slug.title())
    languages = factory.LazyFunction(lambda: ["en", "fr", "ar"])
    schema_preset = "cloaked"
    label_schema = factory.LazyFunction(lambda: preset("cloaked"))


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    user = factory.SubFactory(UserFactory)
    project = factory.SubFactory(ProjectFactory)
    role = Role.ANNOTATOR
    languages = factory.LazyFunction(lambda: ["en"])


class DocumentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Document

    project = factory.SubFactory(ProjectFactory)
    language = "en"
    external_id = factory.Sequence(lambda n: f"doc-{n}")
    text = "Shoutout to Moshe Chaya! At Rue Alphonse Metayer."


class SpanFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Span

    document = factory.SubFactory(DocumentFactory)
    start = 12
    end = 23
    label = "PER"
    source = SpanSource.IMPORT


class PreannotationRunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PreannotationRun

    project = factory.SubFactory(ProjectFactory)
    recognizers = factory.LazyFunction(lambda: ["regex", "known"])
    models_used = factory.LazyFunction(lambda: {"en": ""})


class RunBatchFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = RunBatch

    run = factory.SubFactory(PreannotationRunFactory)
    number = factory.Sequence(lambda n: n + 1)
    language = "en"
    document_ids = factory.LazyFunction(list)
