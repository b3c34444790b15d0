from django.db import migrations, models


class Migration(migrations.Migration):
    """The documents each learned model held out to measure it (issue 22); empty for the
    models trained before, whose split was not recorded."""

    dependencies = [
        ("annotator", "0015_span_sources_run_source_counts"),
    ]

    operations = [
        migrations.AddField(
            model_name="learnedmodel",
            name="held_out_documents",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
