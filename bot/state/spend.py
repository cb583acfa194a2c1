"""Monthly spend in Redis: running sums per budget and month, shared by every replica.

Each budget (``bot.core.spend``) has, per month ``YYYY-MM``, three keys under its workspace's
hash tag: ``spend`` (micro-dollars, ``INCRBY`` when a turn's cost is known), ``limit`` (an
admin's raise for that month, micro-dollars; it wins over the file) and ``notice`` (a hash whose
field is the limit a notice was sent for: ``HSETNX`` lets exactly one replica send it). All
expire 40 days after their month. The check before a turn is part of the rate limits' Lua
call (``bot.state.ratelimit``): one round trip for every control.

Redis is a cache: ``rebuild`` sets a month's sums from the audit log's costs, and the
month's raises from the admin action log; the service does it at start when the month's
``rebuilt`` marker is missing, ``veilbot budget rebuild`` on demand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from bot.core.keys import KeySpace
from bot.core.spend import (
    KINDS,
    MICROS,
    BudgetNotice,
    BudgetRef,
    Budgets,
    BudgetState,
    Clock,
    month_of,
    next_month,
    utc_now,
)
from bot.core.types import InboundMessage
from bot.state.client import RedisClient, store_errors

KEEP_AFTER_MONTH = timedelta(days=40)

_CHARGE = """
local m = #KEYS / 3
local micros, exp, pct = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {}
for j = 1, m do
  local spent = redis.call('INCRBY', KEYS[j], micros)
  redis.call('EXPIREAT', KEYS[j], exp)
  local limit = tonumber(redis.call('GET', KEYS[m + j]) or ARGV[3 + j])
  if limit >= 0 and spent * 100 >= limit * pct then
    if redis.call('HSETNX', KEYS[2 * m + j], tostring(limit), '1') == 1 then
      redis.call('EXPIREAT', KEYS[2 * m + j], exp)
      table.insert(out, j)
      table.insert(out, spent)
      table.insert(out, limit)
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
        self, redis: RedisClient, keys: KeySpace, budgets: Budgets, clock: Clock = utc_now
    ) -> None:
        self._redis = redis
        self._keys = keys
        self.budgets = budgets
        self.clock = clock
        self._charge: Any = None  # registered at the first charge (the console never charges)

    def configure(self, budgets: Budgets) -> None:
        """Take the budgets of a reloaded config file (raises in Redis stay)."""
        self.budgets = budgets

    def key(self, what: str, ref: BudgetRef, month: str) -> str:
        """The ``spend``, ``limit`` or ``notice`` key of ``ref`` in ``month``."""
        return self._keys.budget(ref.workspace_tag, what, month, ref.kind, ref.ident)

    def check_args(self, message: InboundMessage) -> tuple[list[BudgetRef], list[str], list[int]]:
        """The turn's budgets, their ``spend`` then ``limit`` keys, and their file limits."""
        month = month_of(self.clock())
        refs = self.budgets.of(message)
        keys = [self.key("spend", r, month) for r in refs]
        keys += [self.key("limit", r, month) for r in refs]
        return refs, keys, [_micros(r.limit_usd) for r in refs]

    async def charge(self, message: InboundMessage, cost_usd: float) -> list[BudgetNotice]:
        """Add a turn's cost to its budgets; the budgets whose notice is due now.

        Raises:
            StoreUnavailable: Redis cannot be reached.
        """
        now = self.clock()
        month, refs = month_of(now), self.budgets.of(message)
        keys = [self.key(what, r, month) for what in ("spend", "limit", "notice") for r in refs]
        args = [max(0, round(cost_usd * MICROS)), expiry(now), self.budgets.notify_percent]
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
