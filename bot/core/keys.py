"""Redis key names, in one place.

Every key of one thread carries the ``{thread_id}`` hash tag, so in Redis Cluster they live in
one slot and a Lua script or ``MULTI`` may touch them together (history append refreshes the
vault's TTL; erasing a thread deletes both).

Key naming lives in the core, not in ``bot.state``, because two backends must agree on it: the
history, locks and dedupe (``bot.state``) and the vault (``guardrails.vault.store``). Names only:
no Redis client is imported here.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.types import ThreadId

THREAD_KINDS = ("history", "vault")
"""The per-thread keys that live and die together (same TTL, erased together)."""


@dataclass(frozen=True, slots=True)
class KeySpace:
    """Builds key names under one prefix; tests use their own prefix to share a server."""

    prefix: str = "veilbot"

    def thread(self, tid: ThreadId, kind: str) -> str:
        """The key of one per-thread structure (``history``, ``vault``, ``lock``)."""
        return f"{self.prefix}:{{{tid}}}:{kind}"

    def thread_keys(self, tid: ThreadId) -> list[str]:
        """Every key that holds the thread's data (not its lock)."""
        return [self.thread(tid, kind) for kind in THREAD_KINDS]

    def workspace_patterns(self, platform: str, workspace: str) -> list[str]:
        """``SCAN`` patterns of every key of one workspace.

        Its threads' keys (history, vault, lock), its rate-limit counters, and the delivery
        ids its events left (dedupe, the queue's ``seen``: ids only, an hour's TTL, but they
        name the workspace); glob characters in ``workspace`` are escaped. Its queued
        entries live under the queue's hash tag: ``bot.state.queue_drop`` drops them.
        """
        ws = "".join("\\" + c if c in "*?[]\\" else c for c in workspace)
        return [
            f"{self.prefix}:{{{platform}:{ws}:*",
            f"{self.prefix}:{{rate:{platform}:{ws}}}:*",
            f"{self.event(platform, ws)}:*",
            self.queue_everywhere(f"seen:{platform}:{ws}:*"),
        ]

    def vaults(self) -> str:
        """The ``SCAN`` pattern of every thread's vault (glob characters of the prefix escaped)."""
        prefix = "".join("\\" + c if c in "*?[]\\" else c for c in self.prefix)
        return f"{prefix}:{{*}}:vault"

    def thread_of(self, key: str) -> ThreadId | None:
        """The thread of a key ``thread`` named (``None`` for another key)."""
        head, tail = f"{self.prefix}:{{", "}:vault"
        if key.startswith(head) and key.endswith(tail) and len(key) > len(head) + len(tail):
            return ThreadId(key[len(head) : -len(tail)])
        return None

    def sealed_by(self) -> str:
        """The set of the ids of the vault keys that sealed data in this Redis."""
        return f"{self.prefix}:vault-keys"

    def event(self, platform: str, event_id: str) -> str:
        """The dedupe key of one platform delivery."""
        return f"{self.prefix}:event:{platform}:{event_id}"

    def queue(self, kind: str, shard: str = "queue") -> str:
        """A key of one shard of the turn queue (``bot.state.queue``): ``tokens``, ``payloads``, ...

        Every key of a shard carries the shard's hash tag (``queue`` for the first, so a queue
        of one shard keeps the names it always had): the queue's Lua steps touch the stream,
        a thread's list and the delivery's dedupe key together, so in Redis Cluster they must
        share a slot. The shards' tags spread them over the cluster (``queue.shard_tags``).
        """
        return f"{self.prefix}:{{{shard}}}:{kind}"

    def queue_key(self, key: str) -> tuple[str, str] | None:
        """The shard's tag and the kind of a queue key (``None`` for another key)."""
        head = f"{self.prefix}:{{"
        if not key.startswith(head) or "}:" not in key[len(head) :]:
            return None
        shard, _, kind = key[len(head) :].partition("}:")
        return (shard, kind) if shard.startswith("queue") else None

    def queue_everywhere(self, kind: str) -> str:
        """The ``SCAN`` pattern of one kind of queue key in every shard (prefix escaped)."""
        prefix = "".join("\\" + c if c in "*?[]\\" else c for c in self.prefix)
        return f"{prefix}:{{queue*}}:{kind}"

    def rate(self, platform: str, workspace: str, kind: str, ident: str) -> str:
        """A rate limit's key (``bot.state.ratelimit``): one person's or one channel's.

        The workspace is the hash tag: a turn's user and channel limits are checked together
        in one Lua call, so they share a slot, and workspaces spread over the cluster.
        """
        return f"{self.prefix}:{{rate:{platform}:{workspace}}}:{kind}:{ident}"

    def budget(self, tag: str, what: str, month: str, kind: str, ident: str) -> str:
        """A monthly budget's key (``bot.state.budgets``): ``spend``, ``limit`` or ``notice``.

        The hash tag is the rate limits' (the workspace), so a turn's budgets and rate limits
        are checked together in one Lua call.
        """
        return f"{self.prefix}:{{rate:{tag}}}:{what}:{month}:{kind}:{ident}"
