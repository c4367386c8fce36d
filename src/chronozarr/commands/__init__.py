"""Command-line commands, one module each; `chronozarr.cli` registers them on the app.

A command module exposes `register(app)`, parses its arguments, makes one API call and prints the
result. Raising a `ChronozarrError` is enough for a clean `error: ...` and exit status 2.
"""
