"""Realistic, shape-keeping pseudonyms, and invalidation of identifiers.

    suggest("Moshe Chaya", "PER", "en", secret)        # three names of two words
    suggest("@MaryJohanson1987", "USERNAME", "en", secret)   # ['@LaraWilson1989', …]
    invalidate("https://wa.me/+93722758", secret)      # 'https://wa.me/+93824556'-like

Suggestions are deterministic for (secret, original, label), never equal to the original,
to a replacement already taken or to an original found in the corpus. Token-level
consistency ("Moshe" alone after "Moshe Chaya") is the key table's business
(`pseudonymizer.keytable`), not this package's.
"""

from __future__ import annotations

from pseudonymizer.pseudonyms.dispatch import Kind, SurfaceSet, kind_of, suggest
from pseudonymizer.pseudonyms.invalidation import invalidate

__all__ = ["Kind", "SurfaceSet", "invalidate", "kind_of", "suggest"]
