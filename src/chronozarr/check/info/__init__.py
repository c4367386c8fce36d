"""info: what a store holds, in a few lines."""

from .run import info, info_text

__all__ = ['info', 'info_text']
