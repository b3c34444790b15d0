"""What a release's manifest says: the policy it was cut under, the check's detectors and
findings, the counts, the documents released and left out, and the Cloak that made it.
"""

from __future__ import annotations

import os
import subprocess
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.utils import timezone

from annotator.selectors.releases import RELEASED_STATUSES
from annotator.services.releases.ner import RELEASE_PROFILE
from pseudonymizer.release import LEAK_PATTERN_LABELS

if TYPE_CHECKING:
    from annotator.services.releases.build import ReleasePass


@cache
def cloak_version() -> str:
    try:
        return metadata.version("cloak")
    except metadata.PackageNotFoundError:
        return "unknown"


@cache
def cloak_commit() -> str:
    """The commit this Cloak runs from: CLOAK_COMMIT, or git when the code is a checkout."""
    commit = os.environ.get("CLOAK_COMMIT", "").strip()
    if commit:
        return commit
    try:
        found = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parents[3],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return found.stdout.strip() if found.returncode == 0 else ""


def release_manifest(build: ReleasePass, *, data: dict[str, Any] | None) -> dict[str, Any]:
    """What the manifest of `build`'s release says: its policy, the check, the counts, the
    documents released and left out, `data` (the file, None when refused) and who cut it."""
    release = build.release
    return {
        "release": release.version,
        "project": build.project.slug,
        "strategy": release.strategy,
        "strategy_name": build.strategy.label,
        "format": release.format,
        "language": release.language or "all",
        "label_schema": build.project.label_schema,
        "policy": {
            "released": list(RELEASED_STATUSES),
            "left_out": "documents not done or reviewed, with undecided proposals, whose "
            "accepted spans overlap, or whose names the ner queue did not look for",
            "leak_check": {
                "originals": "every alias of every entity not kept, folded as the "
                "known-entity matcher folds them, Arabic proclitics included",
                "patterns": list(LEAK_PATTERN_LABELS),
            },
            "detection_check": {
                "profile": RELEASE_PROFILE,
                "detectors": build.detectors,
                "ner_models": dict(release.ner_models),
                "ner_ran": "in this process" if build.ner_here else "on the ner queue",
                "covered_by": "every word character of a hit lies in spans a person "
                "decided there: accepted (rendered, kept or deleted) or rejected",
            },
        },
        "check": {
            "documents_with_findings": build.leak_documents,
            "leaks": build.leak_count,
            "undecided_hits": build.hit_count,
            # Dismissed by a person as harmless: listed, never silent.
            "dismissed": build.dismissed,
        },
        "counts": {
            "documents_released": len(build.released),
            "documents_left_out": len(build.left_out),
            "documents_left_out_reopened": sum(1 for e in build.left_out if e.get("reopened")),
            "spans": sum(build.by_label.values()),
            "per_label": dict(sorted(build.by_label.items())),
            "per_decision": dict(sorted(build.by_decision.items())),
            "per_language": {
                language: dict(counts) for language, counts in sorted(build.by_language.items())
            },
        },
        "documents": {"released": build.released, "left_out": build.left_out},
        "data": data,
        "cloak": {"version": cloak_version(), "commit": cloak_commit()},
        "cut_by": release.created_by.get_username() if release.created_by else None,
        "requested_at": release.created_at.isoformat(),
        "finished_at": timezone.now().isoformat(),
    }
