"""Key rotation of the thread vaults, and the start-up check that the key ring opens them.

``VaultRotation`` walks every vault hash (``SCAN``) and, thread by thread in one Lua step
(``scripts.REKEY_LUA``), seals its values again with the current key and moves its lookup
and name-token fields from a previous key's HMAC to the current key's. A field's HMAC cannot
be reversed, so the walk finds what each one was made of from the values the vault holds
(a value's identity, its name words in both lookup forms) and moves those that match under a
previous key; any other (a lookup made from a form the code no longer makes) stays behind,
unused once the previous key is dropped, and is counted. A thread done records the key
(``r:``), so a walk run again (after an interruption) passes over it. Turns on other
replicas go on meanwhile: a value is replaced only if unchanged since it was read.

``check_keys`` runs at start: the ids of the keys that sealed data in this Redis are kept in
a set (``KeySpace.sealed_by``); a ring that lacks one of them is refused with an error that
names it, before anything is served. Data from before that set existed is sampled instead.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bot.core.errors import ConfigError, StoreError
from bot.core.keys import KeySpace
from bot.core.types import ThreadId
from guardrails.rules.parts import NAME_TOKEN, PROPER
from guardrails.vault.keys import KEY_SETTING, PREVIOUS_SETTING
from guardrails.vault.linking import identity
from guardrails.vault.scripts import REKEY_LUA
from guardrails.vault.store import RedisVault, VaultFields, redis_errors_as_store_errors

logger = logging.getLogger(__name__)

_SAMPLED_VAULTS = 20
"""How many vaults ``check_keys`` reads when no key ids are recorded yet (older data)."""
HOW_TO = "docs/operations.md#rotating-the-vault-key"
ALL = ThreadId("*")
"""Stands for every thread in error messages."""


@dataclass
class VaultProgress:
    """How far a walk got.

    Attributes:
        threads: vaults walked.
        rekeyed: vaults changed (values sealed again or lookups moved).
        values: values sealed again with the current key.
        lookups: lookup and name-token fields moved to the current key.
        left: lookup fields under no key the walk could match (unused once the key goes).
        unreadable: values no key of the ring opens (left as they are).
    """

    threads: int = 0
    rekeyed: int = 0
    values: int = 0
    lookups: int = 0
    left: int = 0
    unreadable: int = 0


class VaultRotation:
    """Seal every thread's vault with the current key of ``vault.ring``.

    Args:
        vault: the vault, built with the key ring (the current key and the previous ones).
        keys: key names.
        page: how many keys one ``SCAN`` step asks for.
    """

    def __init__(self, vault: RedisVault, keys: KeySpace, *, page: int = 500) -> None:
        self._vault, self._keys, self._page = vault, keys, page
        self._redis = vault.redis
        self._rekey = self._redis.register_script(REKEY_LUA)
        self._current = vault.ring.ids[0].hex()

    async def run(
        self, report: Callable[[VaultProgress], None] | None = None, *, every: int = 1000
    ) -> VaultProgress:
        """Walk every vault; ``report`` is called every ``every`` vaults and at the end.

        Raises:
            StoreUnavailable: Redis cannot be reached (run again: done threads are passed).
        """
        progress = VaultProgress()
        async with redis_errors_as_store_errors("rotate", ALL):
            async for raw in self._redis.scan_iter(match=self._keys.vaults(), count=self._page):
                tid = self._keys.thread_of(raw.decode() if isinstance(raw, bytes) else raw)
                if tid is None:
                    continue
                await self.rekey(tid, progress)
                progress.threads += 1
                if report is not None and progress.threads % every == 0:
                    report(progress)
        if report is not None:
            report(progress)
        return progress

    async def rekey(self, tid: ThreadId, progress: VaultProgress) -> None:
        """Seal one thread's vault with the current key (one read, one Lua step)."""
        fields = await self._vault.read(tid)
        if not fields or _text(fields.get("r:", "")) == self._current:
            return
        args: list[str] = []
        words: dict[str, tuple[str, str]] = {}
        for name, stored in fields.items():
            if not name.startswith("p:"):
                continue
            try:
                entity_type, value, again = self._vault.reopened(tid, name[2:], stored)
            except StoreError:
                progress.unreadable += 1
                continue
            if again is not None:
                args += [name, _text(stored), again]
            words[name[2:]] = (entity_type, value)
        moves, matched = self._moves(tid, fields, words.values())
        key = self._keys.thread(tid, "vault")
        async with redis_errors_as_store_errors("rotate", tid):
            done = await self._rekey(
                keys=[key], args=[self._current, len(args) // 3, *args, *moves]
            )
        resealed, moved = (int(n) for n in done)
        progress.values += resealed
        progress.lookups += moved
        progress.rekeyed += bool(resealed or moved)
        progress.left += sum(1 for n in fields if n[:2] in ("h:", "t:") and n not in matched)

    def _moves(
        self, tid: ThreadId, fields: VaultFields, values: Iterable[tuple[str, str]]
    ) -> tuple[list[str], set[str]]:
        """The (from, to) field pairs to move, and every lookup field whose source was found."""
        moves: list[str] = []
        matched: set[str] = set()
        for entity_type, value in values:
            for source, part in _sources(entity_type, value):
                current, *previous = self._vault.index_by_key(tid, source, part=part)
                prefix = "t:" if part else "h:"
                if prefix + current in fields:
                    matched.add(prefix + current)
                for old in previous:
                    if prefix + old in fields and prefix + old not in matched:
                        matched.add(prefix + old)
                        moves += [prefix + old, prefix + current]
        return moves, matched


def _sources(entity_type: str, value: str) -> list[tuple[str, bool]]:
    """What a value's lookup fields may have been made of: ``(source, is a name token)``.

    Its identity (``linking.identity``) and the value itself; a person's name words, each in
    both forms a lookup uses (``guardrails.rules.parts``: casefolded, and written as a name).
    """
    found = [(identity(entity_type, value), False), (value, False)]
    if entity_type == "PERSON":
        for word in NAME_TOKEN.findall(value):
            token = word.casefold()
            found += [(token, True), (PROPER + token, True)]
    return list(dict.fromkeys(found))


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


async def check_keys(vault: RedisVault, keys: KeySpace) -> None:
    """Refuse to start when the key ring lacks a key that sealed data in this Redis.

    The ids recorded in ``KeySpace.sealed_by`` are compared with the ring's. With none
    recorded (an empty Redis, or data from before the record) a few vaults are read instead;
    a record whose threads are all gone (expired, erased) is dropped. While data is there,
    the current key is recorded too, since this process seals with it.

    Raises:
        ConfigError: a key that sealed data here is not configured; the message names its id
            and what to set.
        StoreUnavailable: Redis cannot be reached.
    """
    ring = {i.hex() for i in vault.ring.ids}
    current, registry = vault.ring.ids[0].hex(), keys.sealed_by()
    async with redis_errors_as_store_errors("key check", ALL):
        recorded = {_text(m) for m in await vault.redis.smembers(registry)}
        if not recorded or recorded - ring:
            found = await _sample(vault, keys)
            if not found:  # nothing sealed here (any more): no key to keep
                await vault.redis.delete(registry)
                return
            recorded |= found
        missing = sorted(recorded - ring)
        if missing:
            raise ConfigError(_refusal(missing, current, opens=bool(recorded & ring)))
        await vault.redis.sadd(registry, current, *recorded)


async def _sample(vault: RedisVault, keys: KeySpace) -> set[str]:
    """The ids of the keys that sealed a few vaults' values (``?``: unknown, none opens it)."""
    found: list[str] = []
    async for raw in vault.redis.scan_iter(match=keys.vaults(), count=1000):
        tid = keys.thread_of(raw.decode() if isinstance(raw, bytes) else raw)
        if tid is None:
            continue
        fields = await vault.read(tid)
        name = next((n for n in fields if n.startswith("p:")), None)
        if name is None:
            continue
        found.append(vault.sealed_by(tid, name[2:], fields[name]))
        if len(found) >= _SAMPLED_VAULTS:
            break
    return set(found)


def _refusal(missing: list[str], current: str, *, opens: bool) -> str:
    unknown = [m for m in missing if m != "?"]
    named = f"key {', '.join(unknown)}" if unknown else "another key"
    if opens:
        return (
            f"the threads in Redis are also sealed with {named}, which is not configured: "
            f"keep it in {PREVIOUS_SETTING} until 'veilbot vault rotate' has finished ({HOW_TO})"
        )
    return (
        f"{KEY_SETTING} (key {current}) does not open the threads in Redis: they are sealed "
        f"with {named}. Set {KEY_SETTING} to the key they were sealed with; to change keys, "
        f"put the old one in {PREVIOUS_SETTING} and run 'veilbot vault rotate' ({HOW_TO})"
    )


async def forget_previous_keys(vault: RedisVault, keys: KeySpace) -> None:
    """After a complete rotation: only the current key has sealed data here now."""
    current, registry = vault.ring.ids[0].hex(), keys.sealed_by()
    async with redis_errors_as_store_errors("key record", ALL):
        await vault.redis.sadd(registry, current)
        stale = {_text(m) for m in await vault.redis.smembers(registry)} - {current}
        if stale:
            await vault.redis.srem(registry, *stale)
