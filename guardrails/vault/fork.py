"""A fork's vault: the values its kept messages refer to, copied under the same placeholders.

A thread forked from another keeps some of its turns (``bot.core.fork``); their text holds
the source's placeholders, so the new thread's vault must restore those and nothing else. Each
value the kept texts refer to is opened with the source's key, sealed again for the new thread
(the seal is bound to the thread id), and looked up by a new HMAC (which covers the thread id
too: equal values in two threads stay unlinkable). Name tokens are taken from the value's words
(``name_parts``), so "Jane" after "Jane Doe" still links in the fork. The type counters are
copied, so a value new to the fork never takes a number the source gave someone else.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence

from bot.core.errors import InputRejected
from bot.core.types import ThreadId
from guardrails.restore.placeholders import canonical, find_placeholders, placeholder_type
from guardrails.rules.parts import name_parts
from guardrails.vault.linking import identity
from guardrails.vault.store import RedisVault, VaultEntry

logger = logging.getLogger(__name__)


class RedisVaultCopier:
    """``VaultCopier`` on a ``RedisVault``: a new thread's vault from another thread's values."""

    def __init__(self, vault: RedisVault) -> None:
        self._vault = vault

    async def copy(self, source: ThreadId, target: ThreadId, kept: Sequence[str]) -> int:
        """Copy into ``target``'s (new) vault the values of ``source`` that ``kept`` refers to.

        Returns:
            How many values were copied.

        Raises:
            InputRejected: ``target`` has a vault already (it is not a new thread).
            StoreError: a vault could not be read or written, or a value does not open.
        """
        fields = await self._vault.read(source)
        sealed = {n[2:]: raw for n, raw in fields.items() if n.startswith("p:")}
        used = referenced(kept, {placeholder_type(p) for p in sealed}) & sealed.keys()
        values: list[tuple[str, VaultEntry]] = []
        for placeholder in sorted(used):
            entity_type, value = self._vault.unseal(source, placeholder, sealed[placeholder])
            entry = VaultEntry(
                entity_type, value, identity(entity_type, value), name_parts(entity_type, value)
            )
            values.append((placeholder, entry))
        counters = {
            n: raw.decode() if isinstance(raw, bytes) else str(raw)
            for n, raw in fields.items()
            if n.startswith("n:")
        }
        copied = await self._vault.write_copy(target, counters, values)
        if copied < 0:
            raise InputRejected("the new thread has values already", reason="exists")
        logger.info("vault forked source=%s target=%s values=%d", source, target, copied)
        return copied


def referenced(texts: Sequence[str], types: Collection[str]) -> set[str]:
    """The canonical placeholders of ``types`` the texts refer to, in any form models write."""
    known = frozenset(types)
    if not known:
        return set()
    return {canonical(m) for text in texts for m in find_placeholders(text, known)}
