"""Benchmarks: scripts that print numbers (see each one's docstring for how to run it)."""
