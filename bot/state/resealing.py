"""Key rotation of the turn queue: queued events sealed again with the current key.

``veilbot vault rotate`` calls ``reseal_queue`` beside the vaults' walk, in every shard of
the queue. Each payload is replaced only if it is still the one read (one Lua step), so an
event a worker takes or a new put meanwhile is left to them.
"""

from __future__ import annotations

from bot.core.errors import StoreError
from bot.core.keys import KeySpace
from bot.core.ports import Sealer
from bot.state.client import RedisClient, store_errors

# KEYS[1] the payloads hash; ARGV entry, the sealed payload as read, the payload sealed again
_RESEAL = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0
"""


async def reseal_queue(redis: RedisClient, keys: KeySpace, sealer: Sealer) -> tuple[int, int]:
    """Seal every queued event again with the sealer's current key.

    Returns:
        How many were sealed again, and how many no configured key opens (left as they are).

    Raises:
        StoreError: Redis failed (run again: what is done stays done).
    """
    script = redis.register_script(_RESEAL)
    resealed = unreadable = 0
    async with store_errors("queue reseal"):
        shards = [k async for k in redis.scan_iter(match=keys.queue_everywhere("payloads"))]
        for raw in shards:
            key = raw.decode() if isinstance(raw, bytes) else str(raw)
            async for field, sealed in redis.hscan_iter(key, count=200):
                entry = field.decode() if isinstance(field, bytes) else str(field)
                try:
                    again = sealer.reseal(entry, bytes(sealed))
                except StoreError:
                    unreadable += 1
                    continue
                if again is not None and await script(keys=[key], args=[entry, sealed, again]):
                    resealed += 1
    return resealed, unreadable
