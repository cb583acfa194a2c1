"""Logs without user text: failures logged by type and place, SDK loggers kept at INFO.

A third-party exception message may quote the text it choked on (a JSON decoder, a KeyError
on a value, an SDK echoing a request), and that text may be a user's. Failures are therefore
logged by type and by where they happened, never by message or with ``exc_info``. And SDK
loggers (Slack, Discord, httpx, anthropic) log request bodies, i.e. message text, at DEBUG:
``configure_logging`` never lets them go below INFO.
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


NOISY_LOGGERS = (
    "slack_sdk",
    "slack_bolt",
    "discord",
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "anthropic",
    "openai",
    "botocore",
    "boto3",
    "google.auth",
    "urllib3",
    "aiohttp.access",
    "asyncio",
    "presidio-analyzer",
)


def configure_logging(level: str) -> None:
    """Root logging at ``level``; SDK loggers never below INFO (at DEBUG they log bodies)."""
    logging.basicConfig(
        level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True
    )
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.INFO, logging.getLevelName(level)))
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
