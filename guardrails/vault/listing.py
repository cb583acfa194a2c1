"""Vaults written before the layout mark (``v:``): each value gets its lookup and ``k:`` list.

A turn looks values up by their HMAC fields alone (``RedisVault.lookup``) and drops them by
their ``k:`` lists (``RedisVault.forget``). A vault from before may hold a value with neither
(written before ``k:`` existed, or whose lookup a different normalization made): the first turn
that meets such a vault reads it whole once, unseals the values without a list, and writes each
its lookup under the current key (unless another value holds that field) and its list, then
marks the vault. From then on its old entries are found as new ones are.
"""

from __future__ import annotations

import logging

from bot.core.errors import StoreError
from bot.core.types import ThreadId
from guardrails.vault.linking import identity
from guardrails.vault.store import RedisVault

logger = logging.getLogger(__name__)


async def list_vault(vault: RedisVault, tid: ThreadId) -> int:
    """List every value of the thread's vault that has no ``k:`` list, and mark the vault.

    A value that does not unseal keeps what it has (the turn that restores it reports it).

    Returns:
        How many values were listed.

    Raises:
        StoreUnavailable: Redis cannot be reached.
        StoreError: Redis failed.
    """
    fields = await vault.read(tid)
    owners: dict[str, list[str]] = {}
    for name, raw in fields.items():
        if name[:2] in ("h:", "t:"):
            owners.setdefault(raw.decode() if isinstance(raw, bytes) else str(raw), []).append(name)
    lists: list[str] = []
    for name, stored in fields.items():
        placeholder = name[2:]
        if not name.startswith("p:") or f"k:{placeholder}" in fields:
            continue
        claimed = owners.get(placeholder, [])
        added = ""
        if not any(n.startswith("h:") for n in claimed):
            try:
                entity_type, value = vault.unseal(tid, placeholder, stored)
            except StoreError:
                continue
            added = "h:" + vault.index_by_key(tid, identity(entity_type, value))[0]
            claimed = [*claimed, added]
        lists += [placeholder, added, " ".join(claimed)]
    listed = await vault.write_lists(tid, lists)
    logger.info("vault listed thread=%s values=%d", tid, listed)
    return listed
