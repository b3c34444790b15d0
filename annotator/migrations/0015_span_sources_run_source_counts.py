from django.db import migrations, models


class Migration(migrations.Migration):
    """Who proposed each span, and what each source proposed in a run (issue 22).

    `Span.sources` is nullable without a default: PostgreSQL adds the column to the largest
    table without rewriting a row, and every span already there was proposed by its `source`
    alone as far as anyone recorded (null).
    """

    dependencies = [
        ("annotator", "0014_partial_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="span",
            name="sources",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="preannotationrun",
            name="source_counts",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
