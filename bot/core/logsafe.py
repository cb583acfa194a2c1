"""Logs without user text: failures logged by type and place, SDK loggers kept at INFO.

A third-party exception message may quote the text it choked on (a JSON decoder, a KeyError
on a value, an SDK echoing a request), and that text may be a user's. Failures are therefore
logged by type and by where they happened, never by message or with ``exc_info``. And SDK
loggers (Slack, Discord, httpx, anthropic) log request bodies, i.e. message text, at DEBUG, and
SQL drivers (aiosqlite, SQLAlchemy, asyncpg) log statements with their parameters:
``configure_logging`` keeps the SDKs at INFO or above and the SQL drivers at WARNING.
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


SQL_LOGGERS = ("aiosqlite", "sqlalchemy", "asyncpg")
"""SQL drivers log statements with their parameters (the audit's prompts and answers), and
SQLAlchemy does so at INFO: these stay at WARNING or above."""

NOISY_LOGGERS = (
    "redis",
    # platform, HTTP and model SDKs log request and response bodies
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
    "urllib3",
    "requests",
    "aiohttp",
    "websockets",
    "hpack",
    "google",
    "s3transfer",
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
    for name in SQL_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLevelName(level)))
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
