"""What admins ask the audit log: filters, pages, roll-ups, and the store's admin side.

Plain data and parsing only (no SQL): the CLI, the HTTP admin API and the chat commands build
a ``RunFilter`` here and hand it to an ``AuditQueryStore``. Every parse error is a
``FilterRejected`` whose message names the field, never echoing a long or odd value.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, Protocol

from bot.core.errors import InputRejected
from bot.core.types import AuditRecord, TurnStatus

MetaValue = str | int | float | bool
GroupBy = Literal["thread", "user", "channel", "workspace", "day"]
GROUPS: tuple[GroupBy, ...] = ("thread", "user", "channel", "workspace", "day")
MAX_PAGE = 1000
_META_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ID = re.compile(r"[A-Za-z0-9_.:@+=-]{1,255}")
_DURATION = re.compile(r"(\d{1,6})([smhdw])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class FilterRejected(InputRejected):
    """An admin's filter, cursor or duration is malformed; the message says which field."""

    def __init__(self, message: str) -> None:
        super().__init__(message, reason="invalid_filter")


def _check_meta(metadata: Mapping[str, Any]) -> dict[str, MetaValue]:
    checked: dict[str, MetaValue] = {}
    for key, value in metadata.items():
        if not isinstance(key, str) or not _META_KEY.fullmatch(key):
            raise FilterRejected("metadata filter keys must match [A-Za-z0-9_-]{1,64}")
        if not isinstance(value, str | int | float | bool):
            raise FilterRejected(
                f"metadata filter {key!r}: values must be a string, number or boolean"
            )
        checked[key] = value
    return checked


def _check_id(name: str, value: str | None) -> str | None:
    if value is not None and not _ID.fullmatch(value):
        raise FilterRejected(f"{name}: only [A-Za-z0-9_.:@+=-], 1 to 255 characters")
    return value


@dataclass(frozen=True, slots=True)
class RunFilter:
    """Which audit runs to read; every given field must match (AND).

    Attributes:
        metadata: exact top-level ``metadata`` key/values (keys ``[A-Za-z0-9_-]+``).
        since: runs started at or after this instant (inclusive).
        until: runs started before this instant (exclusive).
        workspaces: runs of one of these workspaces only (an admin token limited to them).
    """

    metadata: Mapping[str, MetaValue] = field(default_factory=dict)
    thread_id: str | None = None
    user_id: str | None = None
    platform: str | None = None
    workspace: str | None = None
    channel: str | None = None
    status: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    workspaces: frozenset[str] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "metadata", _check_meta(self.metadata))
        for name in ("thread_id", "user_id", "platform", "workspace", "channel"):
            _check_id(name, getattr(self, name))
        for workspace in self.workspaces or ():
            _check_id("workspaces", workspace)
        if self.status is not None and self.status not in {s.value for s in TurnStatus}:
            raise FilterRejected(f"status must be one of {', '.join(s.value for s in TurnStatus)}")
        for name in ("since", "until"):
            value = getattr(self, name)
            if value is not None and value.tzinfo is None:
                object.__setattr__(self, name, value.replace(tzinfo=UTC))

    def describe(self) -> dict[str, Any]:
        """The filter as JSON-ready data (for export metadata lines and logs: ids only)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or (f.name == "metadata" and not value):
                continue
            out[f.name] = value.isoformat() if isinstance(value, datetime) else value
        if "workspaces" in out:
            out["workspaces"] = sorted(out["workspaces"])
        if "metadata" in out:
            out["metadata"] = dict(out["metadata"])
        return out


@dataclass(frozen=True, slots=True)
class UserRef:
    """A person across the service: ``slack:TEAM:USER``, ``discord:USER`` or ``console:USER``."""

    platform: str
    user_id: str
    workspace: str | None = None

    def __str__(self) -> str:
        parts = [self.platform, self.workspace, self.user_id]
        return ":".join(p for p in parts if p is not None)

    def run_filter(self) -> RunFilter:
        """The runs this person started."""
        return RunFilter(platform=self.platform, workspace=self.workspace, user_id=self.user_id)


def parse_user_ref(value: str) -> UserRef:
    """Parse ``slack:T…:U…``, ``discord:…`` or ``console:…``.

    Raises:
        FilterRejected: any other shape.
    """
    parts = value.split(":")
    ok = all(_ID.fullmatch(p) for p in parts)
    if ok and parts[0] == "slack" and len(parts) == 3:
        return UserRef("slack", parts[2], parts[1])
    if ok and parts[0] in ("discord", "console") and len(parts) == 2:
        return UserRef(parts[0], parts[1])
    raise FilterRejected("user must look like slack:TEAM:USER, discord:USER or console:USER")


def parse_duration(value: str) -> timedelta:
    """``90d``, ``12h``, ``30m``, ``2w``, ``45s``.

    Raises:
        FilterRejected: any other shape.
    """
    match = _DURATION.fullmatch(value.strip())
    if not match:
        raise FilterRejected("durations look like 90d, 12h, 30m, 2w or 45s")
    return timedelta(seconds=int(match.group(1)) * _UNITS[match.group(2)])


def parse_instant(value: str, *, now: datetime | None = None) -> datetime:
    """An ISO 8601 date/time (UTC when no offset) or a duration ago (``7d``).

    Raises:
        FilterRejected: neither form.
    """
    if _DURATION.fullmatch(value.strip()):
        return (now or datetime.now(UTC)) - parse_duration(value)
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise FilterRejected("times are ISO 8601 (2026-03-01, 2026-03-01T10:00Z) or 7d") from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed


def parse_meta_pairs(pairs: list[str]) -> dict[str, MetaValue]:
    """``key=text`` (a string) or ``key:=json`` (a JSON number or boolean) pairs.

    Raises:
        FilterRejected: a pair without ``=``, a bad key, or a JSON value of another kind.
    """
    out: dict[str, MetaValue] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise FilterRejected("metadata filters look like key=value or key:=json")
        if key.endswith(":"):
            try:
                out[key[:-1]] = json.loads(value)
            except ValueError:
                raise FilterRejected(f"metadata filter {key[:-1]!r}: not a JSON value") from None
        else:
            out[key] = value
    return _check_meta(out)


def encode_cursor(started_at: datetime, run_id: str) -> str:
    """The opaque position after a run, for keyset pagination."""
    raw = json.dumps([started_at.astimezone(UTC).isoformat(), run_id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """Undo ``encode_cursor``.

    Raises:
        FilterRejected: not a cursor this service issued.
    """
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        stamp, run_id = json.loads(raw)
        return datetime.fromisoformat(stamp), str(run_id)
    except (ValueError, TypeError, binascii.Error):
        raise FilterRejected("cursor is not valid: pass back next_cursor unchanged") from None


def check_limit(limit: int) -> int:
    """A page size within ``1..MAX_PAGE``.

    Raises:
        FilterRejected: outside that range.
    """
    if not 1 <= limit <= MAX_PAGE:
        raise FilterRejected(f"limit must be between 1 and {MAX_PAGE}")
    return limit


@dataclass(frozen=True, slots=True)
class RunPage:
    """One page of runs, newest first; ``next_cursor`` is ``None`` on the last page."""

    runs: list[AuditRecord]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class RollupRow:
    """Totals of one group (a thread, user, channel or UTC day)."""

    key: str
    turns: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float
    entities: dict[str, int]

    @property
    def entity_total(self) -> int:
        """All entities found in the group, any type."""
        return sum(self.entities.values())


@dataclass(frozen=True, slots=True)
class ErasureCounts:
    """What an erasure removed; all zero when run again (erasure is idempotent)."""

    threads: int = 0
    redis_keys: int = 0
    runs_deleted: int = 0
    runs_pseudonymized: int = 0


class AuditQueryStore(Protocol):
    """The admin side of the audit log: read, roll up, purge, erase."""

    async def ping(self) -> bool:
        """Whether the database answers now."""
        ...

    async def list_runs(
        self, run_filter: RunFilter, *, limit: int = 100, cursor: str | None = None
    ) -> RunPage:
        """One page of matching runs, newest first (keyset pagination)."""
        ...

    async def count_runs(self, run_filter: RunFilter) -> int:
        """How many runs match."""
        ...

    async def get_run(self, run_id: str) -> AuditRecord | None:
        """One run by id."""
        ...

    def iter_runs(self, run_filter: RunFilter) -> AsyncGenerator[AuditRecord, None]:
        """Every matching run, newest first, in constant memory."""
        ...

    async def rollup(self, run_filter: RunFilter, by: GroupBy, *, limit: int) -> list[RollupRow]:
        """Totals per group, largest turn count first."""
        ...

    async def purge_before(self, cutoff: datetime) -> int:
        """Delete runs started before ``cutoff``; returns how many."""
        ...

    async def thread_ids(self, run_filter: RunFilter) -> list[str]:
        """The distinct threads of the matching runs."""
        ...

    async def delete_runs(self, run_filter: RunFilter) -> int:
        """Delete the matching runs; returns how many."""
        ...

    async def replace_user_id(self, run_filter: RunFilter, pseudonym: str) -> int:
        """Set ``user_id`` of the matching runs to ``pseudonym``; returns how many."""
        ...
