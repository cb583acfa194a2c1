"""The per-thread placeholder vault in Redis: values encrypted, looked up by HMAC.

One Redis hash per thread, at ``KeySpace.thread(tid, "vault")``:

```
h:<hmac-hex>      -> <TYPE_n>                       which placeholder a value has
t:<hmac-hex>      -> <TYPE_n> or *                  which person a name token belongs to
p:<TYPE_n>        -> base64(nonce | AES-GCM(value))  the value, for restoring
k:<TYPE_n>        -> the h: and t: fields it claimed  so forgetting it touches only its own
n:<TYPE>          -> n                              the last number issued for a type
u:                -> <TYPE_n> <TYPE_m> ...          placed, not yet settled by a retention
v:                -> 2                              the layout: every value has its k: list
```

A turn never reads the vault whole. It asks whether the vault exists (``peek``), looks up the
HMACs of its message's word runs (``lookup``, one script), places its values (``assign``),
and fetches the sealed values of the placeholders its answer uses as the answer arrives
(``recall``), decrypting each when it is shown. Its cost follows the message and the answer,
not the thread's age. A vault written before ``v:`` is listed once
(``guardrails.vault.listing``): each value gets its lookup and ``k:`` list, so old entries are
found by lookup like new ones.

Retention (``retain``): a thread keeps only the values its kept history still refers to. A
message that is deleted or trimmed away takes the values only it introduced with it (their
``p:``, ``h:`` and ``t:`` fields), so its placeholders restore to ``[redacted]`` from then on, as
another thread's do, and the vault of a long thread stays as small as its history. Numbers are
never reissued (``n:`` stays), so a dropped ``<PERSON_1>`` cannot come back as someone else.
A turn that knows what to drop calls ``forget``, which touches those placeholders' own fields
(listed in ``k:``) instead of scanning the vault, so an old thread's turn does not cost more.
Its candidates are the placeholders of the messages the history write dropped and those in
``u:`` (this turn's new ones, and any a failed turn placed): the work of what it drops.

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
import binascii
import functools
import hashlib
import logging
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any, NamedTuple

import redis.asyncio as aioredis
from redis import exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster

from bot.core.errors import StoreError, StoreUnavailable
from bot.core.keys import KeySpace
from bot.core.types import ThreadId
from guardrails.restore.placeholders import TYPE_RE, placeholder_type
from guardrails.text.values import normalize_value
from guardrails.vault.keys import KEY_SETTING, KeyRing, derive_keys
from guardrails.vault.opened import OpenedVault
from guardrails.vault.scripts import (
    ASSIGN_LUA,
    COPY_LUA,
    FIELDS_LUA,
    FORGET_LUA,
    LAYOUT,
    LIST_LUA,
    PEEK_LUA,
    RETAIN_LUA,
)
from guardrails.vault.sealing import SealingKeys, Unopened, recorded_key, unopened_reason

logger = logging.getLogger(__name__)

_UNREACHABLE = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.ClusterDownError,
    redis_errors.SlotNotCoveredError,
)
_AAD_PREFIX = b"veilbot-vault-v1\x00"
_PART_DOMAIN = b"part\x01"
OFF_LOOP_VALUES = 64
"""More values than this in one message are prepared in a worker thread, off the event loop."""

OFF_LOOP_LOOKUPS = 256
"""More lookups than this in one message are hashed in a worker thread, off the event loop."""

VaultFields = dict[str, bytes | str]
"""A thread's vault hash as ``RedisVault.read`` returns it: field name to stored value."""


class VaultPeek(NamedTuple):
    """What a turn learns of its thread's vault before its lookups (``RedisVault.peek``).

    Attributes:
        exists: the vault holds anything (a new thread's has nothing to look up).
        listed: it carries the layout mark: every value has its lookup and ``k:`` list.
        unsettled: placeholders placed by turns whose retention has not run (``u:``).
    """

    exists: bool
    listed: bool
    unsettled: tuple[str, ...]


class Placed(NamedTuple):
    """A value's placeholder, and whether this assignment issued it."""

    placeholder: str
    new: bool


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
        key: the 32-byte master key from ``load_vault_key``, or the ``KeyRing``: values are
            sealed and looked up with the current key, and found with any key of the ring.
        ttl_seconds: lifetime of a thread's vault, refreshed on every assignment.
    """

    def __init__(
        self,
        redis: aioredis.Redis | RedisCluster,
        keys: KeySpace,
        *,
        key: bytes | KeyRing,
        ttl_seconds: int,
    ) -> None:
        self.ring = key if isinstance(key, KeyRing) else KeyRing(key)
        self._redis = redis
        self._keys = keys
        self.sealing = SealingKeys(self.ring.derived(lambda k: derive_keys(k).encryption))
        # one HMAC key per key of the ring, the current first: a lookup made under a previous
        # key is found until ``veilbot vault rotate`` moved it (``guardrails.vault.rotation``)
        self._index_pads = [_hmac_pads(derive_keys(k).index) for k in self.ring.keys]
        self._ttl_ms = int(ttl_seconds * 1000)
        self._assign = redis.register_script(ASSIGN_LUA)
        self._retain = redis.register_script(RETAIN_LUA)
        self._forget = redis.register_script(FORGET_LUA)
        self._peek = redis.register_script(PEEK_LUA)
        self._list = redis.register_script(LIST_LUA)
        self._fields = redis.register_script(FIELDS_LUA)
        self._copy = redis.register_script(COPY_LUA)

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
        return [p.placeholder for p in await self.place(tid, items)]

    async def place(
        self, tid: ThreadId, items: Sequence[tuple[str, str] | VaultEntry]
    ) -> list[Placed]:
        """``assign``, each placeholder with whether this call issued it (see ``assign``)."""
        if not items:
            return []
        # Each value costs an AES-GCM seal and HMACs (~35 us): a long pasted log's hundreds
        # would hold the event loop, and every other event's ack, for tens of ms in one stretch.
        many = len(items) > OFF_LOOP_VALUES
        args = await asyncio.to_thread(self._args, tid, items) if many else self._args(tid, items)
        async with redis_errors_as_store_errors("assign", tid):
            raw = await self._assign(keys=[self._keys.thread(tid, "vault")], args=args)
        placed = [Placed(_text(raw[i]), int(raw[i + 1]) == 1) for i in range(0, len(raw), 2)]
        logger.debug("vault assign thread=%s values=%d", tid, len(placed))
        return placed

    async def peek(self, tid: ThreadId) -> VaultPeek:
        """Whether the thread's vault exists, carries the layout mark, and its ``u:`` list.

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis refused the script.
        """
        async with redis_errors_as_store_errors("load", tid):
            exists, layout, unsettled = await self._peek(keys=[self._keys.thread(tid, "vault")])
        return VaultPeek(
            bool(exists),
            layout is not None and _text(layout) == LAYOUT,
            tuple(_text(unsettled).split()) if unsettled else (),
        )

    async def recall(self, tid: ThreadId, placeholders: Iterable[str]) -> dict[str, bytes | str]:
        """The sealed values of those ``placeholders`` the vault holds (one script).

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis failed.
        """
        wanted = list(placeholders)
        if not wanted:
            return {}
        async with redis_errors_as_store_errors("load", tid):
            raw = await self._values_of(tid, [f"p:{p}" for p in wanted])
        return {p: v for p, v in zip(wanted, raw, strict=True) if v is not None}

    async def _values_of(self, tid: ThreadId, fields: Sequence[str]) -> list[bytes | str | None]:
        """The values of ``fields`` of the thread's vault, ``None`` where absent (one script)."""
        raw = await self._fields(keys=[self._keys.thread(tid, "vault")], args=[" ".join(fields)])
        return [None if v is None or v is False else v for v in raw]

    async def write_lists(self, tid: ThreadId, lists: Sequence[str]) -> int:
        """Give values written before the layout mark their lookup and ``k:`` list, then mark.

        ``lists``: per value its placeholder, a lookup field to add (or ``""``) and its
        ``k:`` list (``guardrails.vault.listing``).

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis refused the script.
        """
        async with redis_errors_as_store_errors("list", tid):
            done = await self._list(keys=[self._keys.thread(tid, "vault")], args=[LAYOUT, *lists])
        return int(done)

    def _args(
        self, tid: ThreadId, items: Sequence[tuple[str, str] | VaultEntry]
    ) -> list[str | int]:
        """The assignment script's arguments, per value: its lookups, type, sealed value, tokens.

        A lookup and each token come once per key of the ring, the current key's first.
        """
        args: list[str | int] = [self._ttl_ms, len(self._index_pads)]
        for item in items:
            entry = item if isinstance(item, VaultEntry) else VaultEntry(*item)
            if not TYPE_RE.fullmatch(entry.type):
                raise ValueError("malformed entity type")
            key = entry.value if entry.key is None else entry.key
            args += [
                *self.index_by_key(tid, key),
                entry.type,
                self._seal(tid, entry.type, entry.value),
                len(entry.parts),
            ]
            for part in entry.parts:
                args += self.index_by_key(tid, part, part=True)
        return args

    async def write_copy(
        self, tid: ThreadId, counters: dict[str, str], values: Sequence[tuple[str, VaultEntry]]
    ) -> int:
        """Fill a new thread's vault: each value under the placeholder it had (a fork).

        ``counters``: the ``n:<TYPE>`` fields to start from (numbers are never reissued);
        ``values``: placeholder and entry, sealed and looked up for ``tid`` here.

        Returns:
            How many values were written; -1 when the vault exists already (nothing written).

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis refused the script.
        """
        args: list[str | int] = [self._ttl_ms, len(counters)]
        for name, last in counters.items():
            args += [name, last]
        for placeholder, entry in values:
            key = entry.value if entry.key is None else entry.key
            tokens = ["t:" + self.index_by_key(tid, p, part=True)[0] for p in entry.parts]
            args += [
                placeholder,
                "h:" + self.index_by_key(tid, key)[0],
                self._seal(tid, entry.type, entry.value),
                len(tokens),
                *tokens,
            ]
        async with redis_errors_as_store_errors("copy", tid):
            return int(await self._copy(keys=[self._keys.thread(tid, "vault")], args=args))

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

    async def forget(
        self, tid: ThreadId, placeholders: Iterable[str], *, settle: bool = False
    ) -> int:
        """Drop ``placeholders``: their values, lookups and name tokens (one atomic script).

        ``retain`` when the caller knows what to drop (it holds the thread's lock): the script
        touches those placeholders' fields only, not the whole vault. ``settle``: the caller
        took the ``u:`` list into account (``peek``, and what it placed since): it is emptied.

        Returns:
            How many placeholders were dropped.

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis refused the script.
        """
        drop = sorted(set(placeholders))
        if not drop and not settle:
            return 0
        args = ["1" if settle else "0", *drop]
        async with redis_errors_as_store_errors("forget", tid):
            dropped = int(await self._forget(keys=[self._keys.thread(tid, "vault")], args=args))
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

    async def lookup(
        self, tid: ThreadId, values: Sequence[str], tokens: Sequence[str]
    ) -> tuple[list[str | None], list[str | None]]:
        """Placeholders of values already in the vault, and of name tokens (one round trip).

        Each value and token is looked up by its HMAC under every key of the ring: the work
        is that of the message, whatever the vault holds.

        Returns:
            For each value its placeholder or ``None``; for each name token the placeholder it
            belongs to or ``None`` (unknown, or shared by two people).

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis failed.
        """
        if not values and not tokens:
            return [], []
        many = len(values) + len(tokens) > OFF_LOOP_LOOKUPS
        name = functools.partial(self._lookup_fields, tid, values, tokens)
        fields = await asyncio.to_thread(name) if many else name()
        async with redis_errors_as_store_errors("lookup", tid):
            raw = await self._values_of(tid, fields)
        count = len(values) + len(tokens)
        found: list[str | None] = [None] * count
        for at, stored in enumerate(raw):  # the current key's first
            if stored is not None and found[at % count] is None:
                found[at % count] = _text(stored)
        return _split(found, len(values))

    def _lookup_fields(
        self, tid: ThreadId, values: Sequence[str], tokens: Sequence[str]
    ) -> list[str]:
        """The ``h:`` fields of the values and ``t:`` of the tokens, key by key of the ring."""
        fields: list[str] = []
        for pads in self._index_pads:  # the current key's first
            fields += [f"h:{h}" for h in _indexes(pads, tid, values)]
            fields += [f"t:{h}" for h in _indexes(pads, tid, tokens, domain=_PART_DOMAIN)]
        return fields

    async def mapping(self, tid: ThreadId) -> dict[str, tuple[str, str]]:
        """Every placeholder of the thread with its entity type and value (one ``HGETALL``).

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis failed, or an entry does not decrypt (wrong key, tampering).
        """
        return dict(self.opened(tid, await self.read(tid)))

    def recalling(self, tid: ThreadId) -> OpenedVault:
        """A turn's values: none yet; ``OpenedVault.recall`` fetches those its answer uses."""
        return OpenedVault(self, tid, {})

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

    def index_by_key(self, tid: ThreadId, value: str, *, part: bool = False) -> list[str]:
        """The lookup HMAC of ``value`` (of a name token, with ``part``) under each ring key.

        The current key's comes first.
        """
        domain = _PART_DOMAIN if part else b""
        return [_indexes(pads, tid, [value], domain=domain)[0] for pads in self._index_pads]

    def _seal(self, tid: ThreadId, entity_type: str, value: str) -> str:
        sealed = self.sealing.seal(value.encode(), _aad(tid, entity_type))
        return base64.b64encode(sealed).decode("ascii")

    def reopened(
        self, tid: ThreadId, placeholder: str, stored: bytes | str
    ) -> tuple[str, str, str | None]:
        """A ``p:`` field's entity type and value, and the value sealed again.

        The last is ``None`` when the current key sealed it already.

        Raises:
            StoreError: a malformed placeholder, or no key of the ring opens the value.
        """
        entity_type, value = self.unseal(tid, placeholder, stored)
        if self.sealing.is_current(_blob(tid, entity_type, stored)):
            return entity_type, value, None
        return entity_type, value, self._seal(tid, entity_type, value)

    def sealed_by(self, tid: ThreadId, placeholder: str, stored: bytes | str) -> str:
        """The id (hex) of the key that sealed a ``p:`` field.

        The ring's key that opens it, else the id the value records; ``?`` when neither
        tells (a value sealed before key ids that no key of the ring opens).
        """
        try:
            entity_type = _entity_type(tid, placeholder)
            blob = _blob(tid, entity_type, stored)
        except StoreError:
            return "?"
        found = self.sealing.opener(blob, _aad(tid, entity_type)) or recorded_key(blob)
        return "?" if found is None else found.hex()

    @property
    def redis(self) -> aioredis.Redis | RedisCluster:
        """The client the vault works through (the rotation walks with it)."""
        return self._redis

    def unseal(self, tid: ThreadId, placeholder: str, stored: bytes | str) -> tuple[str, str]:
        """The entity type and value of one ``p:`` field as ``read`` returned it.

        Raises:
            StoreError: a malformed placeholder, or the value does not decrypt.
        """
        entity_type = _entity_type(tid, placeholder)
        return entity_type, self._open(tid, entity_type, stored)

    def _open(self, tid: ThreadId, entity_type: str, stored: bytes | str) -> str:
        blob = _blob(tid, entity_type, stored)
        try:
            return self.sealing.open(blob, _aad(tid, entity_type)).decode()
        except Unopened as exc:
            raise _unopened(tid, entity_type, exc) from exc
        except UnicodeDecodeError as exc:
            raise _unopened(tid, entity_type, Unopened(None)) from exc


def _blob(tid: ThreadId, entity_type: str, stored: bytes | str) -> bytes:
    try:
        return base64.b64decode(stored, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _unopened(tid, entity_type, Unopened(None)) from exc


def _unopened(tid: ThreadId, entity_type: str, exc: Unopened) -> StoreError:
    """Ids and the key's id only: which key is missing is what an operator must know."""
    return StoreError(
        f"vault entry of type {entity_type} in thread {tid} does not decrypt: "
        f"{unopened_reason(exc)} (check {KEY_SETTING} and VEILBOT_VAULT_PREVIOUS_KEYS)"
    )


def _indexes(
    pads: tuple[Any, Any], tid: ThreadId, values: Sequence[str], *, domain: bytes = b""
) -> list[str]:
    """HMAC-SHA256s of (thread, normalized value) under the HMAC key of ``pads``.

    A message's lookups take some hundred of them; the keyed pads and the thread prefix
    are hashed once and copied per value (what ``hmac`` does, less its per-object cost).
    """
    inner_pad, outer_pad = pads
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
