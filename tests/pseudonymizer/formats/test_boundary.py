from __future__ import annotations

import subprocess
import sys


def test_the_readers_load_no_django() -> None:
    code = (
        "import sys, pseudonymizer.formats as f, pseudonymizer.formats.detect; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('django', 'annotator')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)

    assert result.returncode == 0, result.stdout + result.stderr
