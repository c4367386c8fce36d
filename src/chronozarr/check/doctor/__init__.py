"""doctor: what a host serving a store does to its readers (HTTP rules, caching, decoding), run by `run.py`."""

from .run import DEFAULT_ORIGIN, doctor, plain_bucket

__all__ = ['DEFAULT_ORIGIN', 'doctor', 'plain_bucket']
