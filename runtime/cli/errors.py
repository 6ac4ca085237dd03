"""Mistakes the user can fix, and how they reach the terminal."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click


class UserError(click.ClickException):
    """A mistake the user can fix: exit code 1, one line on stderr."""

    exit_code = 1


@contextmanager
def as_user_error(*kinds: type[Exception]) -> Iterator[None]:
    """Turn ``ValueError`` (the library's bad-input error), or ``kinds``, into a :class:`UserError`."""
    caught = kinds or (ValueError,)
    try:
        yield
    except caught as exc:
        raise UserError(str(exc)) from None
