"""Look-alike letters fold: every derived key of the table is computed again.

`pseudonymizer.folding`, the table's identity (`crypto.normalise_surface`), now reads letters
of other scripts that pass for Latin ones as those ("Εvander" with a Greek capital epsilon is
"evander") and folds Latin letters that do not decompose ("Søren Kjærgaard" is "soren
kjaergaard"). Every keyed digest of an original or of one of its words that holds such a letter
changes, and so does every replacement key that holds one; aliases recorded apart ("Søren
Kjærgaard" and "Soren Kjaergaard") may now be one surface, and two pseudonyms one pseudonym.

The work is keys migration 0006's, run again unchanged with the folding of the day: it
recomputes every alias's digest, replacement key and rows in the blind word index, and settles
the aliases and pseudonyms that now fold together as 0006 says (the older alias keeps the
surface; the later one goes, its entity merged when label and decision agree, or a "one
surface, two decisions" review item when they do not; a pseudonym now shared stays as released
under a key no surface folds to, and goes to review). Every change is an audited key edit
without an actor, and no original is written anywhere.
"""

from importlib import import_module

from django.db import migrations

# A migration's module name starts with a digit: it cannot be imported by a plain import.
refold = import_module("annotator.keys.migrations.0006_refold_surfaces").refold


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0017_refold_look_alikes"),
        ("keys", "0008_alias_replacement_typed"),
    ]

    operations = [migrations.RunPython(refold, migrations.RunPython.noop)]
