"""Database failures at the audit store's boundary, mapped onto the error tree.

```
unreachable (connection refused, timeout, driver connect errors, OperationalError)
    -> StoreUnavailable
a row whose key (the run id) is stored already -> AlreadyStored
any other SQLAlchemy error -> StoreError
```
"""

from __future__ import annotations

from types import TracebackType

from sqlalchemy import exc as sa_exc

from bot.core.errors import AlreadyStored, StoreError, StoreUnavailable

_UNREACHABLE = (
    OSError,
    TimeoutError,
    sa_exc.OperationalError,
    sa_exc.InterfaceError,
    sa_exc.DisconnectionError,
    sa_exc.TimeoutError,
)


def _unreachable(exc: BaseException) -> bool:
    if isinstance(exc, _UNREACHABLE):
        return True
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    # asyncpg errors escape SQLAlchemy's wrapping only while connecting.
    return type(exc).__module__.startswith("asyncpg")


_KEY_TAKEN_SQLITE = frozenset({"SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE"})
_KEY_TAKEN_POSTGRESQL = "23505"  # unique_violation


def _key_taken(exc: BaseException) -> bool:
    """A primary-key or unique violation, as SQLite and PostgreSQL (asyncpg) report it."""
    if not isinstance(exc, sa_exc.IntegrityError):
        return False
    orig = exc.orig
    return (
        getattr(orig, "sqlite_errorname", None) in _KEY_TAKEN_SQLITE
        or getattr(orig, "sqlstate", None) == _KEY_TAKEN_POSTGRESQL
    )


class DbErrors:
    """Maps database failures in a block onto ``StoreUnavailable`` / ``StoreError``."""

    def __init__(self, what: str) -> None:
        self._what = what

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(
        self, et: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is None or isinstance(exc, StoreError) or not isinstance(exc, Exception):
            return
        name = type(exc).__name__
        if _unreachable(exc):
            raise StoreUnavailable(f"{self._what}: database unavailable ({name})") from exc
        if _key_taken(exc):
            raise AlreadyStored(f"{self._what}: already stored ({name})") from exc
        if isinstance(exc, sa_exc.SQLAlchemyError):
            raise StoreError(f"{self._what}: database error ({name})") from exc
