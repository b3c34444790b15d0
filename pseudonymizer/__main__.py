"""`python -m pseudonymizer`: see `pseudonymizer.cli`."""

from pseudonymizer.cli import main

raise SystemExit(main())
