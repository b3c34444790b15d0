from django.apps import AppConfig


class KeysConfig(AppConfig):
    name = "annotator.keys"
    label = "keys"
    verbose_name = "Correspondence table (keys)"
    default_auto_field = "django.db.models.BigAutoField"
