"""The per-thread placeholder vault in Redis: values encrypted, looked up by HMAC.

One Redis hash per thread, at ``KeySpace.thread(tid, "vault")``:

```
h:<hmac-hex>      -> <TYPE_n>                       which placeholder a value has
p:<TYPE_n>        -> base64(nonce | AES-GCM(value))  the value, for restoring
n:<TYPE>          -> n                              the last number issued for a type
```

The HMAC covers the thread id and the normalized value (NFKC, casefolded, whitespace
collapsed), so Redis never holds a value in clear and equal values in two threads are not
linkable. A value keeps its first placeholder whatever type a later detection gives it. New
placeholders are issued by one Lua script per message, so two processes that see the same value
at once get the same placeholder, numbered per type in reading order.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import unicodedata
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import redis.asyncio as aioredis
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from redis import exceptions as redis_errors

from bot.errors import StoreError, StoreUnavailable
from bot.keys import KeySpace
from bot.types import ThreadId
from guardrails.placeholders import TYPE_RE, placeholder_type
from guardrails.vaultkey import KEY_SETTING, derive_keys

logger = logging.getLogger(__name__)

_NONCE_BYTES = 12
_AAD_PREFIX = b"veilbot-vault-v1\x00"

# KEYS[1] vault hash; ARGV[1] TTL in ms, then (hmac, type, ciphertext) per value in reading
# order. Returns one placeholder per value.
_ASSIGN_LUA = """
local out = {}
for i = 2, #ARGV, 3 do
  local hfield = 'h:' .. ARGV[i]
  local ph = redis.call('HGET', KEYS[1], hfield)
  if not ph then
    local n = redis.call('HINCRBY', KEYS[1], 'n:' .. ARGV[i + 1], 1)
    ph = '<' .. ARGV[i + 1] .. '_' .. n .. '>'
    redis.call('HSET', KEYS[1], hfield, ph, 'p:' .. ph, ARGV[i + 2])
  end
  out[#out + 1] = ph
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return out
"""


def normalize_value(value: str) -> str:
    """The form of a value that lookups compare: NFKC, casefolded, whitespace collapsed."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())
    return " ".join(folded.split())


@asynccontextmanager
async def redis_errors_as_store_errors(operation: str, tid: ThreadId) -> AsyncIterator[None]:
    """Convert redis-py errors into ``StoreUnavailable``/``StoreError`` (ids only)."""
    try:
        yield
    except (redis_errors.ConnectionError, redis_errors.TimeoutError) as exc:
        raise StoreUnavailable(f"vault {operation} for thread {tid}: Redis unreachable") from exc
    except redis_errors.RedisError as exc:
        raise StoreError(f"vault {operation} for thread {tid} failed") from exc


class RedisVault:
    """Placeholders and their encrypted values, one Redis hash per thread.

    Args:
        redis: the async Redis (or Redis Cluster) client.
        keys: key names.
        key: the 32-byte master key from ``load_vault_key``.
        ttl_seconds: lifetime of a thread's vault, refreshed on every assignment.
    """

    def __init__(
        self, redis: aioredis.Redis, keys: KeySpace, *, key: bytes, ttl_seconds: int
    ) -> None:
        subkeys = derive_keys(key)
        self._redis = redis
        self._keys = keys
        self._aead = AESGCM(subkeys.encryption)
        self._index_key = subkeys.index
        self._ttl_ms = int(ttl_seconds * 1000)
        self._assign = redis.register_script(_ASSIGN_LUA)

    async def assign(self, tid: ThreadId, items: Sequence[tuple[str, str]]) -> list[str]:
        """Placeholders for ``(entity type, value)`` pairs, in the order given (one round trip).

        A value already in the thread's vault keeps its placeholder; a new one gets the next
        number of its type.

        Raises:
            ValueError: an entity type is not ``[A-Z][A-Z0-9_]*``.
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis refused the script.
        """
        if not items:
            return []
        args: list[str | int] = [self._ttl_ms]
        for entity_type, value in items:
            if not TYPE_RE.fullmatch(entity_type):
                raise ValueError("malformed entity type")
            args += [self._index(tid, value), entity_type, self._seal(tid, entity_type, value)]
        async with redis_errors_as_store_errors("assign", tid):
            raw = await self._assign(keys=[self._keys.thread(tid, "vault")], args=args)
        placeholders = [p.decode() if isinstance(p, bytes) else str(p) for p in raw]
        logger.debug("vault assign thread=%s values=%d", tid, len(placeholders))
        return placeholders

    async def mapping(self, tid: ThreadId) -> dict[str, tuple[str, str]]:
        """Every placeholder of the thread with its entity type and value (one ``HGETALL``).

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis failed, or an entry does not decrypt (wrong key, tampering).
        """
        async with redis_errors_as_store_errors("load", tid):
            fields = await self._redis.hgetall(self._keys.thread(tid, "vault"))
        result: dict[str, tuple[str, str]] = {}
        for raw_field, raw_value in fields.items():
            name = raw_field.decode() if isinstance(raw_field, bytes) else str(raw_field)
            if not name.startswith("p:"):
                continue
            entity_type = _entity_type(tid, name[2:])
            result[name[2:]] = (entity_type, self._open(tid, entity_type, raw_value))
        return result

    def _index(self, tid: ThreadId, value: str) -> str:
        message = tid.encode() + b"\x00" + normalize_value(value).encode()
        return hmac.new(self._index_key, message, hashlib.sha256).hexdigest()

    def _seal(self, tid: ThreadId, entity_type: str, value: str) -> str:
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, value.encode(), _aad(tid, entity_type))
        return base64.b64encode(nonce + sealed).decode("ascii")

    def _open(self, tid: ThreadId, entity_type: str, stored: bytes | str) -> str:
        try:
            blob = base64.b64decode(stored, validate=True)
            nonce, sealed = blob[:_NONCE_BYTES], blob[_NONCE_BYTES:]
            return self._aead.decrypt(nonce, sealed, _aad(tid, entity_type)).decode()
        except (InvalidTag, ValueError) as exc:
            raise StoreError(
                f"vault entry of type {entity_type} in thread {tid} does not decrypt: "
                f"wrong {KEY_SETTING} or tampered data"
            ) from exc


def _entity_type(tid: ThreadId, placeholder: str) -> str:
    try:
        return placeholder_type(placeholder)
    except ValueError:
        raise StoreError(f"vault of thread {tid} holds a malformed placeholder field") from None


def _aad(tid: ThreadId, entity_type: str) -> bytes:
    return _AAD_PREFIX + tid.encode() + b"\x00" + entity_type.encode()
