"""A turn's view of its thread's values: placeholders, each unsealed when first read.

``RedisVault.opened`` gives one over a vault it read whole (``veilbot`` commands, tests);
``RedisVault.recalling`` one that starts empty, for a turn: it knows the values the turn
placed, and ``recall`` fetches the sealed values of the placeholders an answer uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Protocol

from bot.core.types import ThreadId


class SealedValues(Protocol):
    """Where an ``OpenedVault`` gets sealed values and unseals them (``RedisVault``)."""

    async def recall(self, tid: ThreadId, placeholders: Iterable[str]) -> dict[str, bytes | str]:
        """The sealed values of those ``placeholders`` the vault holds."""
        ...

    def unseal(self, tid: ThreadId, placeholder: str, stored: bytes | str) -> tuple[str, str]:
        """The entity type and value of one sealed value."""
        ...


class OpenedVault(Mapping[str, tuple[str, str]]):
    """A thread's placeholders with entity type and value, each unsealed when first read.

    Iterating lists the placeholders without decrypting anything; ``place`` adds one this
    turn issued, whose value is known in clear; ``recall`` fetches more, still sealed.
    """

    def __init__(self, vault: SealedValues, tid: ThreadId, sealed: dict[str, bytes | str]) -> None:
        self._vault = vault
        self._tid = tid
        self._sealed = sealed
        self._open: dict[str, tuple[str, str]] = {}

    def place(self, placeholder: str, typed_value: tuple[str, str]) -> None:
        """Add a placeholder issued after the read, unless the vault already held it."""
        if placeholder not in self._sealed and placeholder not in self._open:
            self._open[placeholder] = typed_value

    async def recall(self, placeholders: Iterable[str]) -> None:
        """Fetch the sealed values of those ``placeholders`` not known yet (one round trip).

        Raises:
            StoreUnavailable: Redis cannot be reached.
            StoreError: Redis failed.
        """
        wanted = [p for p in placeholders if p not in self]
        if wanted:
            self._sealed.update(await self._vault.recall(self._tid, wanted))

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
