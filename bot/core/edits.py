"""A thread's kept history changed outside a turn: forgotten, a message deleted or edited.

``Conversation`` (``bot.core.conversation``) hands these to ``ThreadEdits``. Each takes the
thread's lock, as a turn does, and one of the turns-in-flight slots, so an edit never races a
turn of its thread. The vault keeps only the values the kept history still refers to. A
message is found again by its text redacted afresh, under the guardrail policy of the
thread's scope that its turn ran under (another policy would redact it otherwise, and find
nothing).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Sequence

from bot.core.attachments import FILES_SEPARATOR
from bot.core.ports import Guardrail, HistoryStore, ThreadLocks
from bot.core.scopes import PolicyOverride
from bot.core.text import clean_user_text
from bot.core.types import ChatMessage, Platform, Redaction, ThreadId

log = logging.getLogger("bot.core.conversation")


class ThreadEdits:
    """Forget a thread, or keep its history in step with a deleted or edited message."""

    def __init__(
        self,
        *,
        guardrail: Guardrail,
        history: HistoryStore,
        locks: ThreadLocks,
        in_flight: asyncio.Semaphore,
    ) -> None:
        self._guardrail = guardrail
        self._history = history
        self._locks = locks
        self._in_flight = in_flight

    async def forget(self, thread_id: ThreadId) -> int:
        """Erase a thread's history and vault while no turn of it runs."""
        async with self._locks.hold(thread_id):
            removed = await self._history.erase(thread_id)
        log.info("thread forgotten thread=%s keys=%d", thread_id, removed)
        return removed

    async def message_deleted(
        self,
        thread_id: ThreadId,
        text: str,
        *,
        platform: Platform,
        policy: PolicyOverride | None = None,
    ) -> int:
        """Drop a deleted user message (and the answer to it) from the thread's history.

        ``policy``: the scope's guardrail policy, under which the message was kept.
        """
        cleaned = clean_user_text(text)
        if not cleaned:
            return 0
        async with self._locks.hold(thread_id), self._in_flight:
            redacted = await self._guardrail.anonymize(
                thread_id, cleaned, platform=platform, policy=policy
            )
            removed = await self._history.remove_user_message(thread_id, redacted.text)
            await self.retain(thread_id)
        log.info("deleted message purged thread=%s removed=%d", thread_id, removed)
        return removed

    async def message_edited(
        self,
        thread_id: ThreadId,
        before: str,
        after: str,
        *,
        platform: Platform,
        policy: PolicyOverride | None = None,
    ) -> int:
        """Keep a user's edited message in place of its earlier text, redacted afresh.

        The new text goes through the guardrail with the thread's vault. Values the person
        edited out are withdrawn from the vault unless another message still holds them (the
        answer to the earlier text quoting them does not count: it shows them as
        ``[redacted]`` from then on). A later deletion of the edited message finds it and
        withdraws the rest. An edit to nothing is a deletion. Returns messages changed.
        """
        old, new = clean_user_text(before), clean_user_text(after)
        if not old or old == new or not await self._history.exists(thread_id):
            return 0
        async with self._locks.hold(thread_id), self._in_flight:
            earlier = await self._guardrail.anonymize(
                thread_id, old, platform=platform, policy=policy
            )
            if not new:
                changed = await self._history.remove_user_message(thread_id, earlier.text)
                await self.retain(thread_id)
                return changed
            redacted = await self._guardrail.anonymize(
                thread_id, new, platform=platform, policy=policy
            )
            changed = await self._history.replace_user_message(
                thread_id, earlier.text, redacted.text
            )
            dropped = {e.placeholder for e in earlier.entities} - {
                e.placeholder for e in redacted.entities
            }
            kept = _without_answer_refs(await self._history.load(thread_id), redacted, dropped)
            await self._guardrail.retain(thread_id, kept)
        log.info("edited message kept thread=%s changed=%d", thread_id, changed)
        return changed

    async def withdraw_last(
        self,
        thread_id: ThreadId,
        before: str,
        *,
        platform: Platform,
        policy: PolicyOverride | None = None,
    ) -> tuple[ChatMessage, ...]:
        """Take the thread's last exchange out if its user message reads ``before``.

        For an edit answered again: the turn on the new text then takes the exchange's place,
        so the history holds one turn, not two. The vault is left as it is until that turn
        has run (``settle``): a value the edit kept keeps its placeholder. Returns the
        messages taken out (``restore`` puts them back), none when ``before`` is not the
        thread's last user message.
        """
        old = clean_user_text(before)
        if not old:
            return ()
        async with self._locks.hold(thread_id), self._in_flight:
            history = await self._history.load(thread_id)
            at = next((i for i in range(len(history) - 1, -1, -1) if history[i].role == "user"), -1)
            if at < 0:
                return ()
            last = history[at]
            earlier = await self._guardrail.anonymize(
                thread_id, old, platform=platform, policy=policy
            )
            if last.text != earlier.text and not last.text.startswith(
                earlier.text + FILES_SEPARATOR
            ):
                return ()
            removed = await self._history.remove_user_message(thread_id, earlier.text)
        log.info("edited last message withdrawn thread=%s removed=%d", thread_id, removed)
        return tuple(history[at : at + removed])

    async def restore(self, thread_id: ThreadId, exchange: tuple[ChatMessage, ...]) -> None:
        """Put back an exchange ``withdraw_last`` took out (its new turn was refused)."""
        async with self._locks.hold(thread_id):
            await self._history.append(thread_id, list(exchange))

    async def settle(self, thread_id: ThreadId) -> None:
        """``retain`` under the thread's lock: after an edit's new turn, values edited out go."""
        async with self._locks.hold(thread_id):
            await self.retain(thread_id)

    async def retain(self, thread_id: ThreadId) -> None:
        """Keep in the vault only the values the thread's kept history still refers to."""
        kept = await self._history.load(thread_id)
        await self._guardrail.retain(thread_id, [m.all_text for m in kept])


def _without_answer_refs(
    history: Sequence[ChatMessage], edited: Redaction, dropped: Collection[str]
) -> list[str]:
    """The kept texts, the edited message's answer without the placeholders edited out."""
    texts = [m.all_text for m in history]
    for i in range(len(history) - 2, -1, -1):
        if history[i].role == "user" and history[i].text == edited.text:
            answer = history[i + 1]
            if answer.role == "assistant":
                text = answer.text
                for placeholder in dropped:
                    text = text.replace(placeholder, "")
                # its tool calls still name what they were given and read back
                texts[i + 1] = ChatMessage(answer.role, text, answer.tools).all_text
            break
    return texts
