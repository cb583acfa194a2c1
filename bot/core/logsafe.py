"""Logging failures without their messages.

A third-party exception message may quote the text it choked on (a JSON decoder, a KeyError
on a value, an SDK echoing a request), and that text may be a user's. Failures are therefore
logged by type and by where they happened, never by message or with ``exc_info``.
"""

from __future__ import annotations

import logging
import traceback


def where(exc: BaseException, frames: int = 4) -> str:
    """The innermost frames of an exception as ``file:line function``, joined by ``; ``."""
    stack = traceback.extract_tb(exc.__traceback__)[-frames:]
    return "; ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno} {f.name}" for f in stack)


def describe(exc: BaseException) -> str:
    """``TypeName at file:line fn; …``: safe to log, store in an audit row, or show an admin."""
    return f"{type(exc).__name__} at {where(exc)}"


def log_failure(logger: logging.Logger, what: str, exc: BaseException, *args: object) -> None:
    """Log ``what`` (a %-format with ``args``) at ERROR with ``describe(exc)``, never its text."""
    logger.error("%s: %s", what % args if args else what, describe(exc))
