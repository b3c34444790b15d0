"""Cloak's engine: plain Python, no Django. Text in, data out."""
