"""Rebuild the development sets of `bench/detection_quality.py` from fetched snapshots.

    python bench/devdata/build.py --snapshot-root /work/.mirror --out /work/devdata
    python bench/devdata/build.py social-en-wnut16 social-en-btc      # some sets only
    python bench/devdata/build.py --list

Each source must have been fetched first (a bare git snapshot under the snapshot root, as
`owner+name/repo`); nothing is downloaded. `bench/devdata/README.md` lists the sets.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.devdata import SetSpec, asqphi, news, philter, tab, wnut, write_set  # noqa: E402

SETS: dict[str, SetSpec] = {
    spec.name: spec
    for spec in (
        philter.SET,
        asqphi.SET,
        wnut.WNUT16,
        wnut.WNUT17,
        wnut.BTC,
        news.ANERCORP,
        news.WOJOOD,
        news.EUROPEANA,
        tab.SET,
    )
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", help="set names (default: every one)")
    parser.add_argument("--snapshot-root", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=ROOT.parent / "devdata")
    parser.add_argument("--list", action="store_true", help="list the sets and their sources")
    args = parser.parse_args(argv)
    if args.list:
        for spec in SETS.values():
            print(f"{spec.name:<28} {spec.repo or 'this repository'}")
        return 0
    unknown = [name for name in args.sets if name not in SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; --list shows them")
    for name in args.sets or list(SETS):
        spec = SETS[name]
        started = time.perf_counter()
        documents, provenance = spec.convert(spec.snapshot(args.snapshot_root))
        tallies = write_set(args.out, name, documents, provenance)
        counts = "  ".join(
            f"{which}: {t.documents:,} documents, {t.tokens:,} tokens, "
            f"{sum(t.spans.values()):,} spans"
            for which, t in tallies.items()
        )
        print(f"{name:<28} {counts}  ({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
