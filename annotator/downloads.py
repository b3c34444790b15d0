"""A released file as the page and the API both send it: an attachment, never cached, its
download audited (`annotator.services.releases.files.release_download_record`)."""

from __future__ import annotations

from django.http import FileResponse, Http404, HttpRequest

from annotator.audit import client_ip
from annotator.caching import never_store
from annotator.errors import ConflictError, DomainError, NotFoundError
from annotator.models import Release
from annotator.selectors.release_pages import MANIFEST, release_content_type, release_filename
from annotator.services.releases import files


def release_file(request: HttpRequest, release: Release, what: str) -> FileResponse:
    """A released file as an attachment, never cached, its download audited.

    ConflictError while the release is not done (a refused or failed one has no file);
    Http404 when a done release's file is gone from the disk.
    """
    try:
        if what == MANIFEST:
            path = files.release_manifest_path(release)
        else:
            path = files.release_data_path(release)
        handle = path.open("rb")
    except NotFoundError as missing:
        raise Http404(str(missing)) from missing
    except FileNotFoundError as missing:
        raise Http404(
            f"the file of release {release.version} is missing on the server"
        ) from missing
    except DomainError as error:
        raise ConflictError(str(error)) from error
    files.release_download_record(
        release=release, actor=request.user, what=what, ip_address=client_ip(request)
    )
    response = FileResponse(
        handle,
        as_attachment=True,
        filename=release_filename(release, what),
        content_type=release_content_type(release, what),
    )
    # A release is for the admin who downloads it, never for a cache on the way.
    never_store(response)
    return response
