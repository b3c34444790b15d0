"""Documents imported before queues existed go to their language's annotator, as new ones do
(annotator.services.assignments: the earliest annotator of the language)."""

from django.db import migrations


def assign(apps, schema_editor):
    Project = apps.get_model("annotator", "Project")
    Membership = apps.get_model("annotator", "Membership")
    Document = apps.get_model("annotator", "Document")
    alias = schema_editor.connection.alias
    for project in Project.objects.using(alias).all():
        chosen = {}
        annotators = (
            Membership.objects.using(alias)
            .filter(project=project, role="annotator")
            .order_by("created_at", "id")
        )
        for membership in annotators:
            for language in membership.languages:
                chosen.setdefault(language, membership.user_id)
        for language, user_id in chosen.items():
            Document.objects.using(alias).filter(
                project=project, language=language, assignee__isnull=True
            ).update(assignee_id=user_id)


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0004_audit_assign"),
    ]

    operations = [migrations.RunPython(assign, migrations.RunPython.noop)]
