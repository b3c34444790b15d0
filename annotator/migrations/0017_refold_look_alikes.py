"""Fold every document's search text again: the matching form now reads look-alike letters of
other scripts as the Latin ones they pass for (Greek "Εvander", Cyrillic "Evаnder") and folds
Latin letters that do not decompose ("Søren Kjærgaard" → "soren kjaergaard"), see
`pseudonymizer.folding`. Propagation narrows documents on this column, so a stale one would
hide the documents that hold a known name written so.

The work is annotator migration 0011's, run again with the folding of the day: each search
text that folds otherwise now is written, by id, a batch at a time.
"""

from importlib import import_module

from django.db import migrations

# A migration's module name starts with a digit: it cannot be imported by a plain import.
refold = import_module("annotator.migrations.0011_refold_search_text").refold


class Migration(migrations.Migration):
    dependencies = [("annotator", "0016_learned_held_out_documents")]

    operations = [migrations.RunPython(refold, migrations.RunPython.noop, elidable=True)]
