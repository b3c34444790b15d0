from django.apps import AppConfig


class AnnotatorConfig(AppConfig):
    name = "annotator"
    verbose_name = "Cloak"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model, user_logged_out
        from django.db.models.signals import post_save

        # Registers the system checks (a warning while the keys have no database guard).
        # The tasks, registered with Celery by name: services send work by the name
        # (annotator.services.jobs.task) and never import this module, which imports them.
        from annotator import (
            checks,  # noqa: F401
            tasks,  # noqa: F401
        )

        # Each registers its kinds of job with the lifecycle (annotator.services.jobs), or
        # subscribes to the span service's after-decision hook (annotator.services.decided).
        from annotator.services import (  # noqa: F401
            imports,
            learning,
            propagation,
            quality,
            releases,
            runs,
        )
        from annotator.services.review import attempts  # noqa: F401
        from annotator.signals import signed_out, user_saved

        post_save.connect(user_saved, sender=get_user_model(), dispatch_uid="cloak-user-saved")
        user_logged_out.connect(signed_out, dispatch_uid="cloak-signed-out")
