"""Rate limits in Redis: N turns per window per user and per channel, shared by every replica.

GCRA (the generic cell rate algorithm): each key holds the theoretical arrival time (TAT) of
the next turn, in milliseconds of the Redis server's clock (so replicas' clocks never matter).
A limit of N turns per T lets N through at once, then one every T/N. One Lua call checks every
limit of a turn and, only when all allow it, charges them all: one round trip, and a refused
turn costs nothing. The keys expire when their limit is full again.

The same call first checks the turn's monthly budgets (``bot.state.budgets``): a budget whose
spend and live holds have reached its limit (an admin's raise for the month, else the file's)
refuses the turn before any rate limit is charged.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.budgets import MICROS, BudgetRef, OverBudget, month_of
from bot.core.keys import KeySpace
from bot.core.limits import Limit, Throttled
from bot.core.types import InboundMessage
from bot.state.budgets import HELD, RedisSpendLedger
from bot.state.client import RedisClient, store_errors

_TAKE = (
    HELD
    + """
local nrate, nbud = tonumber(ARGV[1]), tonumber(ARGV[2])
local now = clock()
for j = 1, nbud do
  local limit = tonumber(redis.call('GET', KEYS[nrate + nbud + j]) or ARGV[2 + 2 * nrate + j])
  if limit >= 0 then
    local spent = tonumber(redis.call('GET', KEYS[nrate + j]) or '0')
    if spent + held(KEYS[nrate + 2 * nbud + j], now) >= limit then
      return {-j, spent, limit}
    end
  end
end
local wait, worst = 0, 0
local tats = {}
for i = 1, nrate do
  local key = KEYS[i]
  local period, count = tonumber(ARGV[2 * i + 1]), tonumber(ARGV[2 * i + 2])
  local tat = math.max(tonumber(redis.call('GET', key) or now), now)
  local new_tat = tat + period / count
  tats[i] = new_tat
  local allow_at = new_tat - period
  if allow_at > now and allow_at - now > wait then
    wait, worst = allow_at - now, i
  end
end
if worst > 0 then
  return {worst, math.ceil(wait), 0}
end
for i = 1, nrate do
  local key = KEYS[i]
  redis.call('SET', key, string.format('%d', math.ceil(tats[i])), 'PX', math.ceil(tats[i] - now))
end
return {0, 0, 0}
"""
)


class RedisRateLimiter:
    """The ``TurnLimiter`` port: budgets, user and channel limits checked in one Lua call."""

    def __init__(
        self,
        redis: RedisClient,
        keys: KeySpace,
        limits: Sequence[Limit],
        ledger: RedisSpendLedger | None = None,
    ) -> None:
        self._keys = keys
        self._limits = tuple(limits)
        self._ledger = ledger
        self._take = redis.register_script(_TAKE)

    async def take(self, message: InboundMessage) -> Throttled | OverBudget | None:
        """Charge one turn of ``message`` to its limits; why not when a budget or limit is spent.

        Raises:
            StoreUnavailable: Redis cannot be reached.
        """
        if not self._limits and self._ledger is None:
            return None
        keys: list[str] = []
        args: list[int] = []
        for limit in self._limits:
            ident = message.user_id if limit.kind == "user" else message.channel
            keys.append(self._keys.rate(message.platform, message.workspace, limit.kind, ident))
            args += [int(limit.per_seconds * 1000), limit.turns]
        refs: list[BudgetRef] = []
        if self._ledger is not None:
            refs, budget_keys, budget_args = self._ledger.check_args(message)
            keys += budget_keys
            args += budget_args
        async with store_errors(f"rate limit {message.platform}:{message.workspace}"):
            worst, first, second = await self._take(
                keys=keys, args=[len(self._limits), len(refs), *args]
            )
        worst = int(worst)
        if worst < 0 and self._ledger is not None:
            month = month_of(self._ledger.clock())
            return OverBudget(refs[-worst - 1], int(second) / MICROS, int(first) / MICROS, month)
        if not worst:
            return None
        return Throttled(self._limits[worst - 1], int(first) / 1000)
