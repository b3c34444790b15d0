"""Creating projects and managing who is in them."""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction

from annotator.audit import audit_record
from annotator.errors import DomainError
from annotator.models import AuditAction, Membership, Project, Role
from annotator.permissions import acting_user
from annotator.services.assignments import documents_assign_arrivals
from pseudonymizer.schemas import preset, validate_schema

LANGUAGE_PATTERN = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$")
SLUG_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
# Slugs the pages' addresses use themselves (/projects/new/).
RESERVED_SLUGS = frozenset({"new"})


def _clean_languages(languages: list[str]) -> list[str]:
    cleaned: list[str] = []
    for language in languages:
        language = language.strip()
        if not LANGUAGE_PATTERN.match(language):
            raise DomainError(f"{language!r} is not a language code (use ISO 639-1, e.g. fr)")
        if language not in cleaned:
            cleaned.append(language)
    if not cleaned:
        raise DomainError("a project needs at least one language")
    return cleaned


@transaction.atomic
def project_create(
    *,
    slug: str,
    languages: list[str],
    schema: str | dict[str, Any] = "cloaked",
    name: str = "",
    description: str = "",
    created_by: Any = None,
) -> Project:
    if not SLUG_PATTERN.match(slug):
        raise DomainError(f"{slug!r} is not a valid slug (lower-case letters, digits, hyphens)")
    if slug in RESERVED_SLUGS:
        raise DomainError(f"{slug!r} is a word of the pages' addresses: choose another slug")
    if Project.objects.filter(slug=slug).exists():
        raise DomainError(f"a project {slug!r} already exists")
    if isinstance(schema, str):
        try:
            label_schema = preset(schema)
        except KeyError as error:
            raise DomainError(str(error.args[0])) from None
        preset_name = schema
    else:
        try:
            label_schema = validate_schema(schema)
        except ValueError as error:
            raise DomainError(f"invalid schema: {error}") from None
        preset_name = ""
    project = Project.objects.create(
        slug=slug,
        name=name or slug,
        description=description,
        languages=_clean_languages(languages),
        schema_preset=preset_name,
        label_schema=label_schema,
        created_by=acting_user(created_by),
    )
    audit_record(
        action=AuditAction.PROJECT_CHANGE,
        actor=created_by,
        project=project,
        target=f"project:{project.pk}",
        detail={"event": "created", "languages": project.languages, "schema": preset_name},
    )
    creator = acting_user(created_by)
    if creator is not None:
        # Whoever creates a project from the pages or the API manages it.
        Membership.objects.create(
            user=creator, project=project, role=Role.ADMIN, languages=project.languages
        )
    return project


@transaction.atomic
def membership_set(
    *,
    project: Project,
    username: str,
    role: str,
    languages: list[str] | None = None,
    password: str | None = None,
    email: str = "",
    actor: Any = None,
    via: str = "",
    ip_address: str | None = None,
    password_resets: bool = False,
) -> Membership:
    """Add a user to a project or change their role; creates the user when a password is given.

    A password for someone who already has an account is refused unless `password_resets`
    (the command line, run by whoever runs the server): from a page or the API it would let
    a project's admin take over anyone's account, a superuser's included, by naming them.
    The project's last admin is not made something else (no one could manage it).
    `via` and `ip_address` say for the audit log where the change came from (the admin, a
    command) and from which address."""
    if role not in Role.values:
        raise DomainError(f"unknown role {role!r}; roles are {', '.join(Role.values)}")
    languages = list(languages or [])
    unknown = [language for language in languages if language not in project.languages]
    if unknown:
        raise DomainError(
            f"language(s) {', '.join(unknown)} not in project {project.slug} "
            f"({', '.join(project.languages)})"
        )
    if role == Role.ANNOTATOR and not languages:
        raise DomainError("an annotator needs at least one language")
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    if user is not None and password and not password_resets:
        raise DomainError(
            f"{username!r} already has an account: a password is only for creating one"
        )
    if user is not None and role != Role.ADMIN and _last_admin(project, user.pk):
        raise DomainError("the project's last admin stays admin: make someone else admin first")
    if user is None:
        if not password:
            raise DomainError(f"no user {username!r}: give a password to create one")
        _password_check(password, user_model(username=username, email=email))
        user = user_model.objects.create_user(username=username, password=password, email=email)
    elif password:
        _password_check(password, user)
        user.set_password(password)
        user.save(update_fields=["password"])
    membership, created = Membership.objects.update_or_create(
        user=user, project=project, defaults={"role": role, "languages": languages}
    )
    if role == Role.ANNOTATOR:
        # Documents of their languages that nobody holds yet are theirs now.
        documents_assign_arrivals(project=project, languages=languages)
    audit_record(
        action=AuditAction.MEMBER_CHANGE,
        actor=actor,
        project=project,
        target=f"user:{user.pk}",
        detail={
            "event": "added" if created else "changed",
            "role": role,
            "languages": languages,
            **({"via": via} if via else {}),
        },
        ip_address=ip_address,
    )
    return membership


@transaction.atomic
def membership_remove(
    *,
    project: Project,
    username: str,
    actor: Any = None,
    via: str = "",
    ip_address: str | None = None,
) -> int:
    """Take a user out of a project: their membership goes, and the documents they held that
    are not finished go back to the pool of their language (the next arrival rule gives them
    out again); the number of documents released. Refused for the project's last admin (no
    one could manage it any more) and for someone not in it. Audited; `via` says, as for
    `membership_set`, where the removal came from (the admin)."""
    from annotator.models import Document, DocumentStatus

    membership = (
        Membership.objects.select_for_update()
        .select_related("user")
        .filter(project=project, user__username=username)
        .first()
    )
    if membership is None:
        raise DomainError(f"{username!r} is not a member of project {project.slug}")
    if _last_admin(project, membership.user_id):
        raise DomainError("the project's last admin cannot leave it: make someone else admin first")
    user = membership.user
    held = Document.objects.filter(project=project, assignee=user).exclude(
        status__in=[DocumentStatus.DONE, DocumentStatus.REVIEWED]
    )
    # A replica (blind double annotation) is its annotator's own: it goes with them.
    released = held.filter(replica_of__isnull=True).update(assignee=None)
    membership.delete()
    audit_record(
        action=AuditAction.MEMBER_CHANGE,
        actor=actor,
        project=project,
        target=f"user:{user.pk}",
        detail={
            "event": "removed",
            "role": membership.role,
            "documents_released": released,
            **({"via": via} if via else {}),
        },
        ip_address=ip_address,
    )
    return int(released)


def _last_admin(project: Project, user_id: int) -> bool:
    """Whether `user_id` is the project's only admin: nobody could manage it without them."""
    admins = Membership.objects.filter(project=project, role=Role.ADMIN)
    return admins.filter(user_id=user_id).exists() and not admins.exclude(user_id=user_id).exists()


def schema_compose(
    preset_name: str, keep: list[str] | None = None, extra: Sequence[tuple[str, str]] = ()
) -> dict[str, Any]:
    """A label schema made in a form: the preset's labels that `keep` names (all when None),
    then `extra` (name, description) labels of the project's own (group "custom").
    DomainError for an unknown preset, an unknown kept label, or a schema the engine refuses
    (a name twice, a name with spaces)."""
    try:
        schema = preset(preset_name)
    except KeyError as error:
        raise DomainError(str(error.args[0])) from None
    names = [label["name"] for label in schema["labels"]]
    if keep is not None:
        unknown = sorted(set(keep) - set(names))
        if unknown:
            raise DomainError(f"label(s) {', '.join(unknown)} not in preset {preset_name!r}")
        schema["labels"] = [label for label in schema["labels"] if label["name"] in keep]
    for name, description in extra:
        schema["labels"].append(
            {"name": name.strip(), "description": description.strip(), "group": "custom"}
        )
    schema["name"] = preset_name if keep is None and not extra else f"{preset_name} (edited)"
    try:
        return validate_schema(schema)
    except ValueError as error:
        raise DomainError(f"invalid schema: {error}") from None


def _password_check(password: str, user: Any) -> None:
    """Refuse a password that AUTH_PASSWORD_VALIDATORS refuse (too short, common, all digits,
    too close to the username), with their reasons. The password itself is never repeated."""
    try:
        validate_password(password, user=user)
    except ValidationError as error:
        raise DomainError(f"password refused: {' '.join(error.messages)}") from None


def project_delete(project: Project, actor: Any = None, *, ip_address: str | None = None) -> None:
    """Delete a project and everything of it: its releases (rows and files), its
    correspondence table (entities, aliases and their word index, and its review items'
    pseudonyms, in the keys database, which has no foreign key to the project to cascade
    through), its documents and spans,
    its imports (and the uploads they left), its runs and review items. Audited, by id and
    slug only.

    Refused (ConflictError) while an import, a run or a release of the project is running:
    its worker would write into what is being deleted. Files go once the rows are gone.
    """
    from annotator.errors import ConflictError
    from annotator.models import ImportJob, JobStatus, PreannotationRun, Release
    from annotator.routers import keys_alias
    from annotator.services.jobs import upload_delete
    from annotator.services.releases.files import project_releases_folder
    from annotator.services.table import project_keys_delete

    running = "running"
    if (
        ImportJob.objects.filter(project=project, status=running).exists()
        or PreannotationRun.objects.filter(project=project, status=running).exists()
        or Release.objects.filter(project=project, status=JobStatus.RUNNING).exists()
    ):
        raise ConflictError(
            f"project {project.slug} has an import, a run or a release running: wait for it "
            "to end (or for the reaper to fail it), then delete the project"
        )
    project_id, slug = project.pk, project.slug
    uploads = list(
        ImportJob.objects.filter(project=project)
        .exclude(stored_path="")
        .values_list("stored_path", flat=True)
    )
    releases_folder = project_releases_folder(project)
    keys = keys_alias()
    with transaction.atomic(), transaction.atomic(using=keys):
        counts = {
            "documents": project.documents.count(),
            "releases": Release.objects.filter(project=project).count(),
        }
        # Its entities, aliases, word index and review notes (children first).
        project_keys_delete(project_id)
        # Releases protect their project: they go first.
        Release.objects.filter(project=project).delete()
        project.delete()
        audit_record(
            action=AuditAction.PROJECT_CHANGE,
            actor=actor,
            project=None,
            target=f"project:{project_id}",
            detail={"event": "deleted", "slug": slug, **counts},
            ip_address=ip_address,
        )

        def delete_files() -> None:
            shutil.rmtree(releases_folder, ignore_errors=True)
            for stored_path in uploads:
                upload_delete(stored_path)

        transaction.on_commit(delete_files)
