"""Monthly spend in Redis: running sums per budget and month, shared by every replica.

Each budget (``bot.core.budgets``) has, per month ``YYYY-MM``, four keys under its workspace's
hash tag: ``spend`` (micro-dollars, ``INCRBY`` when a turn's cost is known), ``limit`` (an
admin's raise for that month, micro-dollars; it wins over the file), ``notice`` (a hash whose
field is the limit a notice was sent for: ``HSETNX`` lets exactly one replica send it) and
``held`` (the turns in flight: a sorted set of ``run:micros`` scored by when each hold lapses,
in milliseconds of the Redis server's clock). The first three expire 40 days after their
month, ``held`` when its newest hold lapses.

A budget is spent when its ``spend`` and its live holds reach its limit. The check before a
turn is part of the rate limits' Lua call (``bot.state.ratelimit``): one round trip for every
control. Right before the model call ``reserve`` checks again and holds the call's most
possible cost in one Lua call; ``charge`` adds the real cost and drops the hold in another.
Of any number of turns in flight at once, each passed a check that counted the holds of the
others, so a budget ends at most one call's most possible cost over its limit. A hold its turn
never settles lapses after ``HOLD_SECONDS``.

Redis is a cache: ``rebuild`` sets a month's sums from the audit log's costs, and the
month's raises from the admin action log; the service does it at start when the month's
``rebuilt`` marker is missing, ``veilbot budget rebuild`` on demand.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from bot.core.budgets import (
    KINDS,
    MICROS,
    BudgetNotice,
    BudgetRef,
    Budgets,
    BudgetState,
    Clock,
    Hold,
    OverBudget,
    month_of,
    next_month,
    utc_now,
)
from bot.core.keys import KeySpace
from bot.core.types import InboundMessage
from bot.state.client import RedisClient, store_errors

KEEP_AFTER_MONTH = timedelta(days=40)
HOLD_SECONDS = 900.0
"""How long a turn's hold lasts unless settled: far longer than a model call takes (its
timeout and retries), so only a turn whose process died leaves one to lapse."""

HELD = """
local function held(key, now)
  local total = 0
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', key, now, '+inf')) do
    total = total + tonumber(string.match(member, '%d+$'))
  end
  return total
end
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
"""
"""Lua: the micro-dollars of a budget's live holds, and the server's clock in milliseconds."""

_RESERVE = (
    HELD
    + """
local m = #KEYS / 3
local micros, member, ttl = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local now = clock()
for j = 1, m do
  redis.call('ZREMRANGEBYSCORE', KEYS[2 * m + j], '-inf', now)
  local limit = tonumber(redis.call('GET', KEYS[m + j]) or ARGV[3 + j])
  if limit >= 0 then
    local spent = tonumber(redis.call('GET', KEYS[j]) or '0')
    if spent + held(KEYS[2 * m + j], now) >= limit then
      return {j, spent, limit}
    end
  end
end
if micros > 0 then
  for j = 1, m do
    redis.call('ZADD', KEYS[2 * m + j], now + ttl, member)
    redis.call('PEXPIRE', KEYS[2 * m + j], ttl)
  end
end
return {0, 0, 0}
"""
)

_CHARGE = """
local m = #KEYS / 4
local micros, exp, pct = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {}
for j = 1, m do
  if ARGV[4] ~= '' then
    redis.call('ZREM', KEYS[3 * m + j], ARGV[4])
  end
  if micros > 0 then
    local spent = redis.call('INCRBY', KEYS[j], micros)
    redis.call('EXPIREAT', KEYS[j], exp)
    local limit = tonumber(redis.call('GET', KEYS[m + j]) or ARGV[4 + j])
    if limit >= 0 and spent * 100 >= limit * pct then
      if redis.call('HSETNX', KEYS[2 * m + j], tostring(limit), '1') == 1 then
        redis.call('EXPIREAT', KEYS[2 * m + j], exp)
        table.insert(out, j)
        table.insert(out, spent)
        table.insert(out, limit)
      end
    end
  end
end
return out
"""


def _micros(usd: float | None) -> int:
    return -1 if usd is None else round(usd * MICROS)


def expiry(month_start: datetime) -> int:
    """When a month's keys go (Unix seconds): 40 days after the month ends."""
    return int((next_month(month_start) + KEEP_AFTER_MONTH).timestamp())


class RedisSpendLedger:
    """The ``SpendLedger`` port: spend, raises and notices of the monthly budgets in Redis."""

    def __init__(
        self,
        redis: RedisClient,
        keys: KeySpace,
        budgets: Budgets,
        clock: Clock = utc_now,
        *,
        hold_seconds: float = HOLD_SECONDS,
    ) -> None:
        self._redis = redis
        self._keys = keys
        self.budgets = budgets
        self.clock = clock
        self.hold_seconds = hold_seconds
        # registered at first use (the console never holds nor charges)
        self._charge: Any = None
        self._reserve: Any = None

    def configure(self, budgets: Budgets) -> None:
        """Take the budgets of a reloaded config file (raises in Redis stay)."""
        self.budgets = budgets

    def key(self, what: str, ref: BudgetRef, month: str) -> str:
        """The ``spend``, ``limit``, ``notice`` or ``held`` key of ``ref`` in ``month``."""
        return self._keys.budget(ref.workspace_tag, what, month, ref.kind, ref.ident)

    def check_args(
        self, message: InboundMessage, month: str | None = None
    ) -> tuple[list[BudgetRef], list[str], list[int]]:
        """The turn's budgets, their ``spend``, ``limit`` then ``held`` keys, their file limits."""
        month = month or month_of(self.clock())
        refs = self.budgets.of(message)
        keys = [self.key(what, r, month) for what in ("spend", "limit", "held") for r in refs]
        return refs, keys, [_micros(r.limit_usd) for r in refs]

    async def reserve(
        self, message: InboundMessage, run_id: str, max_cost_usd: float
    ) -> Hold | OverBudget:
        """Hold ``max_cost_usd`` against the turn's budgets, unless one is spent.

        Raises:
            StoreUnavailable: Redis cannot be reached.
        """
        month = month_of(self.clock())
        refs, keys, limits = self.check_args(message, month)
        hold = Hold(run_id, max(0, math.ceil(max_cost_usd * MICROS)), month)
        if self._reserve is None:
            self._reserve = self._redis.register_script(_RESERVE)
        args = [hold.micros, hold.member, math.ceil(self.hold_seconds * 1000), *limits]
        async with store_errors(f"budget hold {message.platform}:{message.workspace}"):
            spent_at, spent, limit = await self._reserve(keys=keys, args=args)
        if int(spent_at):
            return OverBudget(
                refs[int(spent_at) - 1], int(limit) / MICROS, int(spent) / MICROS, month
            )
        return hold

    async def charge(
        self, message: InboundMessage, cost_usd: float, hold: Hold | None = None
    ) -> list[BudgetNotice]:
        """Add a turn's cost to its budgets, dropping its ``hold``; the notices due now.

        Raises:
            StoreUnavailable: Redis cannot be reached.
        """
        now = self.clock()
        month, refs = month_of(now), self.budgets.of(message)
        keys = [self.key(what, r, month) for what in ("spend", "limit", "notice") for r in refs]
        keys += [self.key("held", r, hold.month if hold else month) for r in refs]
        args: list[int | str] = [
            max(0, round(cost_usd * MICROS)),
            expiry(now),
            self.budgets.notify_percent,
            hold.member if hold else "",
        ]
        args += [_micros(r.limit_usd) for r in refs]
        if self._charge is None:
            self._charge = self._redis.register_script(_CHARGE)
        async with store_errors(f"budget charge {message.platform}:{message.workspace}"):
            out = await self._charge(keys=keys, args=args)
        return [
            BudgetNotice(
                refs[int(out[i]) - 1], int(out[i + 2]) / MICROS, int(out[i + 1]) / MICROS, month
            )
            for i in range(0, len(out), 3)
        ]

    async def set_limit(self, ref: BudgetRef, usd: float | None) -> str:
        """Raise (or lower) ``ref``'s limit for this month; ``None`` drops the raise."""
        now = self.clock()
        month = month_of(now)
        key = self.key("limit", ref, month)
        async with store_errors("budget limit"):
            if usd is None:
                await self._redis.delete(key)
            else:
                await self._redis.set(key, _micros(usd), exat=expiry(now))
        return month

    async def states(
        self, refs: Iterable[BudgetRef], month: str | None = None
    ) -> list[BudgetState]:
        """The month's spend and effective limit of each budget in ``refs``."""
        month = month or month_of(self.clock())
        found = []
        async with store_errors("budget states"):
            for ref in refs:
                spent, raised = (
                    await self._redis.get(self.key("spend", ref, month)),
                    await self._redis.get(self.key("limit", ref, month)),
                )
                limit = int(raised) / MICROS if raised is not None else ref.limit_usd
                found.append(
                    BudgetState(ref, month, int(spent or 0) / MICROS, limit, raised is not None)
                )
        return found

    async def known(self, month: str | None = None) -> list[BudgetRef]:
        """Every budget with spend or a raise this month, and every named one in the file."""
        month = month or month_of(self.clock())
        seen: dict[tuple[str, str], BudgetRef] = {}
        for kind, named in self.budgets.named.items():
            for ident in named:
                seen[(kind, ident)] = self.budgets.ref(kind, ident)
        for what in ("spend", "limit"):
            pattern = f"{self._keys.prefix}:{{rate:*}}:{what}:{month}:*"
            async with store_errors("budget scan"):
                async for raw in self._redis.scan_iter(match=pattern, count=500):
                    name = raw.decode() if isinstance(raw, bytes) else str(raw)
                    kind, ident = name.split(f":{what}:{month}:", 1)[1].split(":", 1)
                    if kind in KINDS:
                        seen.setdefault((kind, ident), self.budgets.ref(kind, ident))
        return sorted(seen.values(), key=lambda r: (KINDS.index(r.kind), r.ident))

    async def rebuild(
        self, sums: Mapping[tuple[str, str], float], raises: Mapping[tuple[str, str], float | None]
    ) -> int:
        """Set this month's sums (by kind and id) from the audit log, and its raises."""
        now = self.clock()
        month = month_of(now)
        async with store_errors("budget rebuild"):
            for (kind, ident), usd in sums.items():
                key = self.key("spend", self.budgets.ref(kind, ident), month)
                await self._redis.set(key, _micros(usd), exat=expiry(now))
            for (kind, ident), limit in raises.items():
                await self.set_limit(self.budgets.ref(kind, ident), limit)
            await self._redis.set(self.rebuilt_key(month), "1", exat=expiry(now))
        return len(sums)

    def rebuilt_key(self, month: str) -> str:
        """The marker of a month whose sums were rebuilt (or begun) in this Redis."""
        return f"{self._keys.prefix}:budgets:{month}:rebuilt"

    async def claim_rebuild(self) -> bool:
        """Whether this process should rebuild the month (its marker was missing: set now)."""
        now = self.clock()
        async with store_errors("budget rebuild"):
            return bool(
                await self._redis.set(
                    self.rebuilt_key(month_of(now)), "0", nx=True, exat=expiry(now)
                )
            )
