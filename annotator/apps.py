from django.apps import AppConfig


class AnnotatorConfig(AppConfig):
    name = "annotator"
    verbose_name = "Cloak"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model, user_logged_out
        from django.db.models.signals import post_save

        # The system checks (a warning while the keys have no database guard), and the tasks,
        # registered with Celery by name: services send work by the name
        # (annotator.services.jobs.task) and never import the tasks module, which imports them.
        from annotator import checks, tasks  # noqa: F401
        from annotator.selectors.corpus import in_corpus

        # Each registers its kinds of job with the lifecycle (annotator.services.jobs).
        from annotator.services import imports, learning, releases, runs  # noqa: F401
        from annotator.services.table import corpus_check_set
        from annotator.signals import signed_out, user_saved

        # The door to the keys reads no document: its read of the corpus is handed over.
        corpus_check_set(in_corpus)

        post_save.connect(user_saved, sender=get_user_model(), dispatch_uid="cloak-user-saved")
        user_logged_out.connect(signed_out, dispatch_uid="cloak-signed-out")
