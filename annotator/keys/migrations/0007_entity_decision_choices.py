"""An entity's decision is one of the engine's, as a span's is: choices, and a check
constraint the database enforces (`entity_decision_valid`, as `span_decision_valid`)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("keys", "0006_refold_surfaces"),
    ]

    operations = [
        migrations.AlterField(
            model_name="entity",
            name="decision",
            field=models.CharField(
                choices=[
                    ("pseudonymize", "Pseudonymize"),
                    ("keep", "Keep"),
                    ("invalidate", "Invalidate"),
                    ("delete", "Delete"),
                ],
                default="pseudonymize",
                max_length=16,
            ),
        ),
        migrations.AddConstraint(
            model_name="entity",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("decision__in", ["pseudonymize", "keep", "invalidate", "delete"])
                ),
                name="entity_decision_valid",
            ),
        ),
    ]
