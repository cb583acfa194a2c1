"""The per-thread placeholder vault in Redis: values encrypted, looked up by HMAC.

One Redis hash per thread, at ``KeySpace.thread(tid, "vault")``:

```
h:<hmac-hex>      -> <TYPE_n>                       which placeholder a value has
t:<hmac-hex>      -> <TYPE_n> or *                  which person a name token belongs to
p:<TYPE_n>        -> base64(nonce | AES-GCM(value))  the value, for restoring
k:<TYPE_n>        -> the h: and t: fields it claimed  so forgetting it touches only its own
n:<TYPE>          -> n                              the last number issued for a type
```

Retention (``retain``): a thread keeps only the values its kept history still refers to. A
message that is deleted or trimmed away takes the values only it introduced with it (their
``p:``, ``h:`` and ``t:`` fields), so its placeholders restore to ``[redacted]`` from then on, as
another thread's do, and the vault of a long thread stays as small as its history. Numbers are
never reissued (``n:`` stays), so a dropped ``<PERSON_1>`` cannot come back as someone else.
A turn that knows what to drop calls ``forget``, which touches those placeholders' own fields
(listed in ``k:``) instead of scanning the vault, so an old thread's turn does not cost more.

The HMAC covers the thread id and the normalized value (NFKC, casefolded, whitespace
collapsed), so Redis never holds a value in clear and equal values in two threads are not
linkable. A value keeps its first placeholder whatever type a later detection gives it. New
placeholders are issued by one Lua script per message, so two processes that see the same value
at once get the same placeholder, numbered per type in reading order.

Linking: an entry may carry name tokens (``VaultEntry.parts``). A new placeholder registers
each token (``t:``); a token that two placeholders claim becomes ``*`` (ambiguous). A value
with no placeholder of its own whose tokens all point to one placeholder reuses it, so "Jane"
after "Jane Doe" is the same person, and "Jane" after "Jane Doe" and "Jane Roe" is a new one.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import os
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, NamedTuple

import redis.asyncio as aioredis
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from redis import exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster

from bot.core.errors import StoreError, StoreUnavailable
from bot.core.keys import KeySpace
from bot.core.types import ThreadId
from guardrails.restore.placeholders import TYPE_RE, placeholder_type
from guardrails.text.values import normalize_value
from guardrails.vault.keys import KEY_SETTING, derive_keys

logger = logging.getLogger(__name__)

_UNREACHABLE = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.ClusterDownError,
    redis_errors.SlotNotCoveredError,
)
_NONCE_BYTES = 12
_AAD_PREFIX = b"veilbot-vault-v1\x00"
_PART_DOMAIN = b"part\x01"
OFF_LOOP_VALUES = 64
"""More values than this in one message are prepared in a worker thread, off the event loop."""

# KEYS[1] vault hash; ARGV[1] TTL in ms, then per value in reading order: hmac, type,
# ciphertext, number of name tokens k, k token hmacs. Returns one placeholder per value.
_ASSIGN_LUA = """
local out = {}
local i = 2
while i <= #ARGV do
  local hfield, etype, sealed = 'h:' .. ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local parts = {}
  for j = 1, tonumber(ARGV[i + 3]) do parts[j] = 't:' .. ARGV[i + 3 + j] end
  i = i + 4 + #parts
  local ph = redis.call('HGET', KEYS[1], hfield)
  if not ph and #parts > 0 then
    local linked = nil
    for j = 1, #parts do
      local owner = redis.call('HGET', KEYS[1], parts[j])
      if not owner or owner == '*' or (linked and linked ~= owner) then
        linked = nil
        break
      end
      linked = owner
    end
    if linked then ph = linked end
  end
  if not ph then
    local n = redis.call('HINCRBY', KEYS[1], 'n:' .. etype, 1)
    ph = '<' .. etype .. '_' .. n .. '>'
    local claimed = {hfield}
    for j = 1, #parts do
      local owner = redis.call('HGET', KEYS[1], parts[j])
      if not owner then
        redis.call('HSET', KEYS[1], parts[j], ph)
        claimed[#claimed + 1] = parts[j]
      elseif owner ~= ph then
        redis.call('HSET', KEYS[1], parts[j], '*')
      end
    end
    local listed = table.concat(claimed, ' ')
    redis.call('HSET', KEYS[1], hfield, ph, 'p:' .. ph, sealed, 'k:' .. ph, listed)
  end
  out[#out + 1] = ph
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return out
"""


# KEYS[1] vault hash; ARGV the placeholders to keep. Drops every other placeholder's value,
# lookup and name-token fields (an ambiguous token, ``*``, stays ambiguous). Returns the number
# of placeholders dropped.
_RETAIN_LUA = """
local keep = {}
for i = 1, #ARGV do keep[ARGV[i]] = true end
local fields = redis.call('HGETALL', KEYS[1])
local drop, dropped = {}, 0
for i = 1, #fields, 2 do
  local name, value = fields[i], fields[i + 1]
  local kind = string.sub(name, 1, 2)
  if kind == 'p:' or kind == 'k:' then
    if not keep[string.sub(name, 3)] then
      drop[#drop + 1] = name
      if kind == 'p:' then dropped = dropped + 1 end
    end
  elseif (kind == 'h:' or kind == 't:') and value ~= '*' and not keep[value] then
    drop[#drop + 1] = name
  end
end
for i = 1, #drop, 500 do
  redis.call('HDEL', KEYS[1], unpack(drop, i, math.min(i + 499, #drop)))
end
return dropped
"""


# KEYS[1] vault hash; ARGV placeholders to drop. Each one's value, and the lookup and name-token
# fields it claimed (``k:``) where they still point to it; work in proportion to what is dropped.
# A value stored before ``k:`` existed has no list: its fields are found by a scan.
_FORGET_LUA = """
local drop, unlisted, dropped = {}, {}, 0
for i = 1, #ARGV do
  local ph = ARGV[i]
  local held = redis.call('HDEL', KEYS[1], 'p:' .. ph) == 1
  if held then dropped = dropped + 1 end
  local claimed = redis.call('HGET', KEYS[1], 'k:' .. ph)
  if claimed then
    for name in string.gmatch(claimed, '%S+') do
      if redis.call('HGET', KEYS[1], name) == ph then drop[#drop + 1] = name end
    end
    drop[#drop + 1] = 'k:' .. ph
  elseif held then
    unlisted[ph] = true
  end
end
if next(unlisted) then
  local fields = redis.call('HGETALL', KEYS[1])
  for i = 1, #fields, 2 do
    local kind = string.sub(fields[i], 1, 2)
    if (kind == 'h:' or kind == 't:') and unlisted[fields[i + 1]] then
      drop[#drop + 1] = fields[i]
    end
  end
end
for i = 1, #drop, 500 do
  redis.call('HDEL', KEYS[1], unpack(drop, i, math.min(i + 499, #drop)))
end
return dropped
"""


VaultFields = dict[str, bytes | str]
"""A thread's vault hash as ``RedisVault.read`` returns it: field name to stored value."""


class VaultEntry(NamedTuple):
    """A value to place in the vault.

    Attributes:
        type: its entity type.
        value: what the placeholder restores to (markup included).
        key: what it is looked up by, when not the value (``guardrails.vault.linking.identity``).
        parts: name tokens a later mention may use alone (``guardrails.vault.linking.name_parts``).
    """

    type: str
    value: str
    key: str | None = None
    parts: tuple[str, ...] = ()


@asynccontextmanager
async def redis_errors_as_store_errors(operation: str, tid: ThreadId) -> AsyncIterator[None]:
    """Convert redis-py errors into ``StoreUnavailable``/``StoreError`` (ids only)."""
    try:
        yield
    except (redis_errors.RedisError, redis_errors.RedisClusterException) as exc:
        # a cluster client that reaches no node raises the latter, caused by the former
        if isinstance(exc, _UNREACHABLE) or isinstance(exc.__cause__, _UNREACHABLE):
            raise StoreUnavailable(
                f"vault {operation} for thread {tid}: Redis unreachable"
            ) from exc
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
        self, redis: aioredis.Redis | RedisCluster, keys: KeySpace, *, key: bytes, ttl_seconds: int
    ) -> None:
        subkeys = derive_keys(key)
        self._redis = redis
        self._keys = keys
        self._aead = AESGCM(subkeys.encryption)
        self._index_pads = _hmac_pads(subkeys.index)
        self._ttl_ms = int(ttl_seconds * 1000)
        self._assign = redis.register_script(_ASSIGN_LUA)
        self._retain = redis.register_script(_RETAIN_LUA)
        self._forget = redis.register_script(_FORGET_LUA)

    async def assign(
        self, tid: ThreadId, items: Sequence[tuple[str, str] | VaultEntry]
    ) -> list[str]:
        """Placeholders for ``(entity type, value)`` pairs or entries, in order (one round trip).

        A value already in the thread's vault keeps its placeholder; a value whose name tokens
        all belong to one placeholder takes that one; a new one gets the next number of its
        type.

        Raises:
            ValueError: an entity type is not ``[A-Z][A-Z0-9_]*``.
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis refused the script.
        """
        if not items:
            return []
        # Each value costs an AES-GCM seal and HMACs (~35 us): a long pasted log's hundreds
        # would hold the event loop, and every other event's ack, for tens of ms in one stretch.
        many = len(items) > OFF_LOOP_VALUES
        args = await asyncio.to_thread(self._args, tid, items) if many else self._args(tid, items)
        async with redis_errors_as_store_errors("assign", tid):
            raw = await self._assign(keys=[self._keys.thread(tid, "vault")], args=args)
        placeholders = [p.decode() if isinstance(p, bytes) else str(p) for p in raw]
        logger.debug("vault assign thread=%s values=%d", tid, len(placeholders))
        return placeholders

    def _args(
        self, tid: ThreadId, items: Sequence[tuple[str, str] | VaultEntry]
    ) -> list[str | int]:
        """The assignment script's arguments: per value its lookup, type, sealed value, tokens."""
        args: list[str | int] = [self._ttl_ms]
        for item in items:
            entry = item if isinstance(item, VaultEntry) else VaultEntry(*item)
            if not TYPE_RE.fullmatch(entry.type):
                raise ValueError("malformed entity type")
            key = entry.value if entry.key is None else entry.key
            args += [
                self._index(tid, key),
                entry.type,
                self._seal(tid, entry.type, entry.value),
                len(entry.parts),
                *(self._index(tid, part, domain=_PART_DOMAIN) for part in entry.parts),
            ]
        return args

    async def retain(self, tid: ThreadId, placeholders: Iterable[str]) -> int:
        """Drop every value of the thread but those of ``placeholders`` (one atomic script).

        Returns:
            How many placeholders were dropped.

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis refused the script.
        """
        keep = sorted(set(placeholders))
        async with redis_errors_as_store_errors("retain", tid):
            dropped = int(await self._retain(keys=[self._keys.thread(tid, "vault")], args=keep))
        if dropped:
            logger.debug("vault retain thread=%s dropped=%d", tid, dropped)
        return dropped

    async def forget(self, tid: ThreadId, placeholders: Iterable[str]) -> int:
        """Drop ``placeholders``: their values, lookups and name tokens (one atomic script).

        ``retain`` when the caller knows what to drop (it holds the thread's lock and read the
        vault): the script touches those placeholders' fields only, not the whole vault.

        Returns:
            How many placeholders were dropped.

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis refused the script.
        """
        drop = sorted(set(placeholders))
        if not drop:
            return 0
        async with redis_errors_as_store_errors("forget", tid):
            dropped = int(await self._forget(keys=[self._keys.thread(tid, "vault")], args=drop))
        logger.debug("vault forget thread=%s dropped=%d", tid, dropped)
        return dropped

    async def read(self, tid: ThreadId) -> VaultFields:
        """The thread's whole vault hash as it stands (one ``HGETALL``), values still sealed.

        ``lookup`` and ``opened`` answer from it without asking Redis again, for as long as
        nothing else writes to the vault: under the thread's lock.

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis failed.
        """
        async with redis_errors_as_store_errors("load", tid):
            raw = await self._redis.hgetall(self._keys.thread(tid, "vault"))
        # inline rather than ``_text`` per field: an old thread's vault has hundreds
        return {n.decode() if type(n) is bytes else str(n): value for n, value in raw.items()}

    def lookup(
        self, tid: ThreadId, fields: VaultFields, values: Sequence[str], tokens: Sequence[str]
    ) -> tuple[list[str | None], list[str | None]]:
        """Placeholders of values already in the vault, and of name tokens, from ``read``.

        Returns:
            For each value its placeholder or ``None``; for each name token the placeholder it
            belongs to or ``None`` (unknown, or shared by two people). An empty vault (a new
            thread) needs no HMAC at all.
        """
        if not fields:
            return [None] * len(values), [None] * len(tokens)
        names = [f"h:{h}" for h in self._indexes(tid, values)]
        names += [f"t:{h}" for h in self._indexes(tid, tokens, domain=_PART_DOMAIN)]
        found = [_text(v) if (v := fields.get(name)) is not None else None for name in names]
        return _split(found, len(values))

    @staticmethod
    def may_know(fields: VaultFields) -> bool:
        """Whether fields ``read`` returned hold any lookup (``h:`` or ``t:``) to answer."""
        return any(name.startswith(("h:", "t:")) for name in fields)

    async def mapping(self, tid: ThreadId) -> dict[str, tuple[str, str]]:
        """Every placeholder of the thread with its entity type and value (one ``HGETALL``).

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis failed, or an entry does not decrypt (wrong key, tampering).
        """
        return dict(self.opened(tid, await self.read(tid)))

    def opened(self, tid: ThreadId, fields: VaultFields) -> OpenedVault:
        """Every placeholder in fields ``read`` returned, with its entity type and value.

        Values are unsealed when first read (a turn restores the few its answer uses, not
        the whole vault of an old thread); one is unsealed at once, so a wrong key fails here.

        Raises:
            StoreError: an entry does not decrypt (wrong key, tampering), here or when read.
        """
        sealed = {name[2:]: raw for name, raw in fields.items() if name.startswith("p:")}
        opened = OpenedVault(self, tid, sealed)
        for placeholder in sealed:
            opened[placeholder]  # noqa: B018  (the key check: decrypts or raises StoreError)
            break
        return opened

    def _index(self, tid: ThreadId, value: str, *, domain: bytes = b"") -> str:
        return self._indexes(tid, [value], domain=domain)[0]

    def _indexes(self, tid: ThreadId, values: Sequence[str], *, domain: bytes = b"") -> list[str]:
        """HMAC-SHA256s of (thread, normalized value) under the index key.

        A message's lookups take some hundred of them; the keyed pads and the thread prefix
        are hashed once and copied per value (what ``hmac`` does, less its per-object cost).
        """
        inner_pad, outer_pad = self._index_pads
        prefix = inner_pad.copy()
        prefix.update(domain + tid.encode() + b"\x00")
        out = []
        for value in values:
            inner = prefix.copy()
            inner.update(normalize_value(value).encode())
            outer = outer_pad.copy()
            outer.update(inner.digest())
            out.append(outer.hexdigest())
        return out

    def _seal(self, tid: ThreadId, entity_type: str, value: str) -> str:
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, value.encode(), _aad(tid, entity_type))
        return base64.b64encode(nonce + sealed).decode("ascii")

    def unseal(self, tid: ThreadId, placeholder: str, stored: bytes | str) -> tuple[str, str]:
        """The entity type and value of one ``p:`` field as ``read`` returned it.

        Raises:
            StoreError: a malformed placeholder, or the value does not decrypt.
        """
        entity_type = _entity_type(tid, placeholder)
        return entity_type, self._open(tid, entity_type, stored)

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


class OpenedVault(Mapping[str, tuple[str, str]]):
    """A thread's placeholders with entity type and value, each unsealed when first read.

    Iterating lists the placeholders without decrypting anything; ``place`` adds one this
    turn issued, whose value is known in clear.
    """

    def __init__(self, vault: RedisVault, tid: ThreadId, sealed: dict[str, bytes | str]) -> None:
        self._vault = vault
        self._tid = tid
        self._sealed = sealed
        self._open: dict[str, tuple[str, str]] = {}

    def place(self, placeholder: str, typed_value: tuple[str, str]) -> None:
        """Add a placeholder issued after the read, unless the vault already held it."""
        if placeholder not in self._sealed and placeholder not in self._open:
            self._open[placeholder] = typed_value

    def __getitem__(self, placeholder: str) -> tuple[str, str]:
        found = self._open.get(placeholder)
        if found is None:
            found = self._vault.unseal(self._tid, placeholder, self._sealed[placeholder])
            self._open[placeholder] = found
        return found

    def __contains__(self, placeholder: object) -> bool:
        return placeholder in self._sealed or placeholder in self._open

    def __iter__(self) -> Iterator[str]:
        yield from self._sealed
        yield from (p for p in self._open if p not in self._sealed)

    def __len__(self) -> int:
        return len(self._sealed) + sum(1 for p in self._open if p not in self._sealed)


def _hmac_pads(key: bytes) -> tuple[Any, Any]:
    """SHA-256 states after the inner and outer padded keys of HMAC (RFC 2104)."""
    block = hashlib.sha256().block_size
    padded = (hashlib.sha256(key).digest() if len(key) > block else key).ljust(block, b"\x00")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in padded))
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in padded))
    return inner, outer


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _split(found: list[str | None], values: int) -> tuple[list[str | None], list[str | None]]:
    """Placeholders of the values, then the owners of the tokens (``*``: none, ambiguous)."""
    owners = [o if o and o != "*" else None for o in found[values:]]
    return found[:values], owners


def _entity_type(tid: ThreadId, placeholder: str) -> str:
    try:
        return placeholder_type(placeholder)
    except ValueError:
        raise StoreError(f"vault of thread {tid} holds a malformed placeholder field") from None


def _aad(tid: ThreadId, entity_type: str) -> bytes:
    return _AAD_PREFIX + tid.encode() + b"\x00" + entity_type.encode()
