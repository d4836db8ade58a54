"""Errors every app raises, mapped to HTTP by config.exceptions."""


class ResolutionConflict(Exception):
    """The character changed or waits on a choice: answered 409 and nothing changes."""


class NotAllowed(Exception):
    """The user may see the character but not do this (answered 403)."""
