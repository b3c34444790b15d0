from django.db import migrations, models


class Migration(migrations.Migration):
    """When the reaper sent a job's work again, taken for lost from the broker (issue 29): once
    since its last sign of life, before it fails the job."""

    dependencies = [
        ("annotator", "0017_refold_look_alikes"),
    ]

    operations = [
        migrations.AddField(
            model_name="importjob",
            name="resent_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="learnedmodel",
            name="resent_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="preannotationrun",
            name="resent_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="release",
            name="resent_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="releasebatch",
            name="resent_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="runbatch",
            name="resent_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
