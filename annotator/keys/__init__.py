"""The correspondence table: entities, their aliases and replacements (the keys).

An app of its own so that a database router can keep it in a separate database or schema,
readable only by the code that serves the keys.
"""
