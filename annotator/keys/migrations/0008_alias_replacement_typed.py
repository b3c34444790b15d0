"""Whether a person chose an alias's replacement, or the server drew it: a relabel draws again
only what was drawn. Aliases recorded before this column count as drawn (the table did not
say)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("keys", "0007_entity_decision_choices"),
    ]

    operations = [
        migrations.AddField(
            model_name="alias",
            name="replacement_typed",
            field=models.BooleanField(default=False),
        ),
    ]
