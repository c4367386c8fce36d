"""validate: the spec's MUSTs checked on a store's documents and objects, run by `run.py`."""

from .run import Step, validate

__all__ = ['Step', 'validate']
