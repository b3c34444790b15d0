"""The release service as a package of modules of one idea each: the package itself (what
`annotator.apps` imports) registers the release's kinds of job, with the tasks that run them."""

from __future__ import annotations

from annotator import tasks
from annotator.models import Release, ReleaseBatch
from annotator.services import releases
from annotator.services.jobs import job_kind, job_kinds, task


def test_the_package_registers_the_release_kinds_of_job() -> None:
    assert job_kind(Release) is releases.RELEASES
    assert job_kind(ReleaseBatch) is releases.RELEASE_BATCHES
    assert task(releases.RELEASES.task) == tasks.release_build
    assert task(releases.RELEASE_BATCHES.task) == tasks.release_ner
    assert sum(kind.model in (Release, ReleaseBatch) for kind in job_kinds()) == 2


def test_the_package_re_exports_nothing_of_its_modules() -> None:
    # One home for each name: callers import from the module that owns it.
    assert not hasattr(releases, "release_create")
    assert not hasattr(releases, "release_build")
