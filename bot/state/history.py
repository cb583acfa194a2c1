"""Thread history in Redis: one list per thread of ``ChatMessage.to_json()``, newest last.

Every write is one Lua script, so it is atomic and one round trip. ``append`` trims the list
to the newest ``max_messages`` and then drops any assistant messages left at its head, so a
trimmed history always starts with a user message (it may then hold ``max_messages - 1``).
``append`` also refreshes the TTL of every per-thread key (history and vault), so the vault
never expires before the history that references its placeholders, and returns what the
thread keeps after the write: the turn needs it next (vault retention). A caller that read
the history under the thread's lock passes it (``after``): the script then says only how
many messages the trim dropped, when the list held as many as that read did, and the kept
messages are that read plus the new ones less the dropped (an old thread's turn no longer
reads back and parses its whole history a second time); otherwise the script reads the list
back in the same call.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence

from bot.core.attachments import FILES_SEPARATOR
from bot.core.keys import KeySpace
from bot.core.types import ChatMessage, ThreadId
from bot.state.client import RedisClient, store_errors

logger = logging.getLogger(__name__)

# KEYS: history, then the thread's other keys. ARGV: ttl, max, the length the caller read (-1:
# none), messages... Returns how many messages the trim dropped from the head when the list
# held the length the caller read, else the whole list after the write.
_APPEND = """
local known = tonumber(ARGV[3]) == redis.call('LLEN', KEYS[1])
for i = 4, #ARGV do
  redis.call('RPUSH', KEYS[1], ARGV[i])
end
local max = tonumber(ARGV[2])
local dropped = 0
local length = redis.call('LLEN', KEYS[1])
if length > max then
  redis.call('LTRIM', KEYS[1], -max, -1)
  dropped = length - max
  while true do
    local head = redis.call('LINDEX', KEYS[1], 0)
    if not head then break end
    local ok, msg = pcall(cjson.decode, head)
    if ok and type(msg) == 'table' and msg['role'] == 'assistant' then
      redis.call('LPOP', KEYS[1])
      dropped = dropped + 1
    else
      break
    end
  end
end
for i = 1, #KEYS do
  redis.call('EXPIRE', KEYS[i], ARGV[1])
end
if known then
  return dropped
end
return redis.call('LRANGE', KEYS[1], 0, -1)
"""

# A user message is found by its redacted text, or by that text followed by the blocks of the
# files it carried (``FILES_SEPARATOR``): those are not in a deletion's or an edit's text.
_FIND_USER = """
local function find_user(items, text, sep)
  local prefix = text .. sep
  for i = #items, 1, -1 do
    local ok, msg = pcall(cjson.decode, items[i])
    if ok and type(msg) == 'table' and msg['role'] == 'user' and type(msg['text']) == 'string'
        and (msg['text'] == text or string.sub(msg['text'], 1, #prefix) == prefix) then
      return i, msg
    end
  end
  return nil, nil
end
"""

# KEYS: history. ARGV: user text, tombstone, files separator. Removes the newest matching user
# message and the assistant message right after it.
_REMOVE_USER = (
    _FIND_USER
    + """
local items = redis.call('LRANGE', KEYS[1], 0, -1)
local i = find_user(items, ARGV[1], ARGV[3])
if not i then
  return 0
end
local removed = 1
redis.call('LSET', KEYS[1], i - 1, ARGV[2])
if items[i + 1] then
  local ok2, nxt = pcall(cjson.decode, items[i + 1])
  if ok2 and type(nxt) == 'table' and nxt['role'] == 'assistant' then
    redis.call('LSET', KEYS[1], i, ARGV[2])
    removed = 2
  end
end
redis.call('LREM', KEYS[1], 0, ARGV[2])
return removed
"""
)

# KEYS: history. ARGV: user text, its replacement text, files separator. Rewrites the newest
# matching user message in place, its files' blocks kept; the answer after it stays.
_REPLACE_USER = (
    _FIND_USER
    + """
local items = redis.call('LRANGE', KEYS[1], 0, -1)
local i, msg = find_user(items, ARGV[1], ARGV[3])
if not i then
  return 0
end
msg['text'] = ARGV[2] .. string.sub(msg['text'], #ARGV[1] + 1)
redis.call('LSET', KEYS[1], i - 1, cjson.encode(msg))
return 1
"""
)

_TOMBSTONE = "\x00veilbot-removed\x00"


class RedisHistoryStore:
    """``HistoryStore`` on a Redis list per thread.

    Args:
        redis: the client (see ``bot.state.client.open_redis``).
        keys: key names; all of a thread's keys share its hash tag.
        ttl_seconds: idle lifetime of a thread's history and vault, refreshed on each append.
        max_messages: the most messages kept per thread (older ones are trimmed).
    """

    def __init__(
        self, redis: RedisClient, keys: KeySpace, *, ttl_seconds: int, max_messages: int
    ) -> None:
        if ttl_seconds < 1 or max_messages < 1:
            raise ValueError("ttl_seconds and max_messages must be positive")
        self._redis = redis
        self._keys = keys
        self._ttl = ttl_seconds
        self._max = max_messages
        self._append = redis.register_script(_APPEND)
        self._remove_user = redis.register_script(_REMOVE_USER)
        self._replace_user = redis.register_script(_REPLACE_USER)

    async def load(self, thread_id: ThreadId) -> list[ChatMessage]:
        """All kept messages of the thread, oldest first, in one ``LRANGE``.

        Entries that cannot be parsed are skipped (and counted in a warning).
        """
        async with store_errors(f"history load {thread_id}"):
            raw = await self._redis.lrange(self._keys.thread(thread_id, "history"), 0, -1)
        return _parsed(thread_id, raw)

    async def append(
        self,
        thread_id: ThreadId,
        messages: Sequence[ChatMessage],
        *,
        after: Sequence[ChatMessage] | None = None,
    ) -> list[ChatMessage]:
        """Append messages, trim, and refresh the TTL of every per-thread key, atomically.

        Args:
            thread_id: the thread.
            messages: what to append, oldest first.
            after: the kept messages as the caller read them (``load``) under the thread's
                lock, if it did; when Redis still holds that many, they are not read back.

        Returns:
            The thread's kept messages after the write, oldest first, as ``load`` reads them
            (the same script: no second round trip). Nothing to append: ``load``.
        """
        if not messages:
            return await self.load(thread_id)
        keys = self._thread_keys(thread_id)
        known = -1 if after is None else len(after)
        args: list[str | int] = [self._ttl, self._max, known, *(m.to_json() for m in messages)]
        async with store_errors(f"history append {thread_id}"):
            raw = await self._append(keys=keys, args=args)
        if isinstance(raw, int) and after is not None:
            return [*after, *messages][raw:]
        return _parsed(thread_id, raw)

    async def exists(self, thread_id: ThreadId) -> bool:
        """Whether the thread has any kept history (one EXISTS, no payload)."""
        async with store_errors(f"history exists {thread_id}"):
            return bool(await self._redis.exists(self._keys.thread(thread_id, "history")))

    async def erase(self, thread_id: ThreadId) -> int:
        """Delete the thread's history and vault in one command.

        Returns:
            The number of keys that existed and were deleted.
        """
        async with store_errors(f"history erase {thread_id}"):
            return int(await self._redis.delete(*self._keys.thread_keys(thread_id)))

    async def remove_user_message(self, thread_id: ThreadId, text: str) -> int:
        """Remove the newest user message with this (placeholder) text, atomically.

        The assistant message right after it, if any, goes too; so do the blocks of the files
        the message carried.

        Returns:
            The number of messages removed: 0, 1 or 2.
        """
        key = self._keys.thread(thread_id, "history")
        async with store_errors(f"history remove message {thread_id}"):
            removed = await self._remove_user(keys=[key], args=[text, _TOMBSTONE, FILES_SEPARATOR])
        return int(removed)

    async def replace_user_message(self, thread_id: ThreadId, text: str, new_text: str) -> int:
        """Rewrite the newest user message with ``text`` to ``new_text``, atomically.

        The blocks of the files the message carried stay after the new text.

        Returns:
            1 when a message was rewritten, else 0.
        """
        key = self._keys.thread(thread_id, "history")
        async with store_errors(f"history replace message {thread_id}"):
            return int(await self._replace_user(keys=[key], args=[text, new_text, FILES_SEPARATOR]))

    def _thread_keys(self, thread_id: ThreadId) -> list[str]:
        history = self._keys.thread(thread_id, "history")
        return [history, *(k for k in self._keys.thread_keys(thread_id) if k != history)]


@functools.lru_cache(maxsize=1024)
def _message(raw: str | bytes) -> ChatMessage:
    """One history entry, parsed once while it is in use.

    Each turn reads its thread's whole kept history twice, and the turn before read all but
    its newest entries: parsing them again made a turn cost more the older its thread.
    Messages are immutable placeholder text, so sharing them is safe; the cache holds well
    under a megabyte for chat, about ten at most for the longest messages.
    """
    return ChatMessage.from_json(raw)


def _parsed(thread_id: ThreadId, raw: Sequence[str | bytes]) -> list[ChatMessage]:
    """The messages of a history list; unreadable entries are skipped (and counted in a log)."""
    messages: list[ChatMessage] = []
    for item in raw:
        try:
            messages.append(_message(item))
        except (ValueError, KeyError, TypeError):
            continue
    if len(messages) != len(raw):
        logger.warning(
            "history of %s: skipped %d unreadable entries", thread_id, len(raw) - len(messages)
        )
    return messages
