"""The chronozarr format itself: pure functions and data, no I/O.

Everything the writer, reader, validator and append agree on lives here, once.
"""
