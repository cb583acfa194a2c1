"""Rate limits in Redis: N turns per window per user and per channel, shared by every replica.

GCRA (the generic cell rate algorithm): each key holds the theoretical arrival time (TAT) of
the next turn, in milliseconds of the Redis server's clock (so replicas' clocks never matter).
A limit of N turns per T lets N through at once, then one every T/N. One Lua call checks every
limit of a turn and, only when all allow it, charges them all: one round trip, and a refused
turn costs nothing. The keys expire when their limit is full again.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.keys import KeySpace
from bot.core.limits import Limit, Throttled
from bot.core.types import InboundMessage
from bot.state.client import RedisClient, store_errors

_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait, worst = 0, 0
local tats = {}
for i, key in ipairs(KEYS) do
  local period, count = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local tat = math.max(tonumber(redis.call('GET', key) or now), now)
  local new_tat = tat + period / count
  tats[i] = new_tat
  local allow_at = new_tat - period
  if allow_at > now and allow_at - now > wait then
    wait, worst = allow_at - now, i
  end
end
if worst > 0 then
  return {worst, math.ceil(wait)}
end
for i, key in ipairs(KEYS) do
  redis.call('SET', key, string.format('%d', math.ceil(tats[i])), 'PX', math.ceil(tats[i] - now))
end
return {0, 0}
"""


class RedisRateLimiter:
    """The ``TurnLimiter`` port: user and channel limits taken in one Lua call."""

    def __init__(self, redis: RedisClient, keys: KeySpace, limits: Sequence[Limit]) -> None:
        self._keys = keys
        self._limits = tuple(limits)
        self._take = redis.register_script(_TAKE)

    async def take(self, message: InboundMessage) -> Throttled | None:
        """Charge one turn of ``message`` to its limits; ``Throttled`` when one is spent.

        Raises:
            StoreUnavailable: Redis cannot be reached.
        """
        if not self._limits:
            return None
        keys, args = [], []
        for limit in self._limits:
            ident = message.user_id if limit.kind == "user" else message.channel
            keys.append(self._keys.rate(message.platform, message.workspace, limit.kind, ident))
            args += [int(limit.per_seconds * 1000), limit.turns]
        async with store_errors(f"rate limit {message.platform}:{message.workspace}"):
            worst, wait_ms = await self._take(keys=keys, args=args)
        if not worst:
            return None
        return Throttled(self._limits[int(worst) - 1], int(wait_ms) / 1000)
