"""The guarded turn: one user message in, one answer out, written against the ports only.

```
dedupe ─▶ scope + access + rate limits ─▶ clean + check input
      ─▶ detection ‖ file downloads ‖ (per-thread lock ─▶ files redacted ─▶ vault ‖ history.load)
      ─▶ redact ─▶ context window ─▶ (queued: still wanted?) ─▶ spend held
      ─▶ model (complete | stream, restoring deltas) ─▶ restore ─▶ output scan
      ─▶ history.append(user, answer) ─▶ audit.record ─▶ spend settled ─▶ Reply
```

Every failure becomes a friendly ``Reply`` and an audit record with its status; nothing
reaches the model unless the guardrail ran, and nothing the service keeps holds raw text.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import replace

from bot.core.access import AccessRules
from bot.core.attachments import FileIntake, IncomingFile
from bot.core.budget_watch import BudgetWatch
from bot.core.budgets import OverBudget, over_budget_reply
from bot.core.edits import ThreadEdits
from bot.core.errors import (
    GuardrailError,
    InputRejected,
    ModelError,
    StoreError,
)
from bot.core.fork import Fork, ForkSpan
from bot.core.limits import Throttled, throttled_reply
from bot.core.logsafe import describe, log_failure
from bot.core.metrics import NO_METRICS
from bot.core.ports import (
    AuditStore,
    EventDedupe,
    FileReader,
    Guardrail,
    HistoryStore,
    Metrics,
    ModelClient,
    ReplySink,
    SpendLedger,
    StreamRestorer,
    ThreadLocks,
    ToolBox,
    TurnLimiter,
    VaultCopier,
)
from bot.core.scopes import Scope, Scopes, effective_settings, settings_text
from bot.core.text import (
    FAILURE_REPLIES,
    INTERNAL_REPLY,
    MODEL_EMPTY_REPLY,
    NOT_SAVED_NOTE,
    REFUSED_REPLY,
    TOOLS_EXHAUSTED_REPLY,
    check_input,
    clean_user_text,
    model_reply,
    rejection_reply,
)
from bot.core.thread_fork import ThreadForks
from bot.core.tool_rounds import CountedSink, ToolRounds
from bot.core.turn import Turn, count_placeholders, drop_pending, finish, stored_exchange
from bot.core.types import (
    ChatMessage,
    InboundMessage,
    ModelRequest,
    ModelResult,
    Platform,
    Redaction,
    Reply,
    Restoration,
    TextAnalysis,
    ThreadId,
    ToolSpec,
    TurnStatus,
)
from bot.core.window import fit_to_window

log = logging.getLogger(__name__)


class Conversation:
    """The ``MessageHandler`` every adapter calls."""

    def __init__(
        self,
        *,
        guardrail: Guardrail,
        history: HistoryStore,
        model: ModelClient,
        audit: AuditStore,
        locks: ThreadLocks,
        dedupe: EventDedupe,
        system_prompt: str,
        window_tokens: int,
        max_input_chars: int,
        metrics: Metrics = NO_METRICS,
        max_in_flight: int = 48,
        access: AccessRules | None = None,
        limiter: TurnLimiter | None = None,
        scopes: Scopes | None = None,
        ledger: SpendLedger | None = None,
        files: FileReader | None = None,
        vault_copier: VaultCopier | None = None,
        tools: ToolBox | None = None,
    ) -> None:
        self._guardrail = guardrail
        self._history = history
        self._model = model
        self._audit = audit
        self._locks = locks
        self._dedupe = dedupe
        self._system = system_prompt
        self._window_tokens = window_tokens
        self._max_chars = max_input_chars
        self._metrics = metrics
        self._access = access or AccessRules()
        self._limiter = limiter
        self._scopes = scopes or Scopes()
        self.budgets = BudgetWatch(ledger)
        self._files = files
        self._tools = tools
        # The one cap on turns in flight, whoever calls (every platform adapter): a burst
        # waits here rather than for Redis connections or model slots further in. Always
        # taken after the thread lock (never the other way round: no deadlock).
        self._in_flight = asyncio.Semaphore(max_in_flight)
        self._edits = ThreadEdits(
            guardrail=guardrail, history=history, locks=locks, in_flight=self._in_flight
        )
        self._forks = (
            None
            if vault_copier is None
            else ThreadForks(history=history, locks=locks, values=vault_copier, audit=audit)
        )

    async def handle(self, message: InboundMessage, sink: ReplySink | None = None) -> Reply | None:
        """Run one guarded turn; ``None`` for a duplicate delivery or a withdrawn turn.

        A queued message withdrawn while it ran (``InboundMessage.withdrawn``: its workspace
        uninstalled the app) ends before the model is called, or, if it was withdrawn during
        the call, before the answer is stored: audited ``dropped``, nothing to post.

        Detection reads no thread state, so it begins before the thread's lock is taken and
        runs while the lock is asked for (and waited for, behind the thread's earlier turns);
        everything that reads or writes the thread waits for the lock. At most
        ``max_in_flight`` turns run at once past it; the others wait for a slot. A turn takes
        its slot once it holds its thread's lock, so the queued messages of one busy thread
        never hold up the other threads.
        """
        turn = Turn.begin(message, self._scopes.of(message))
        if not turn.scope.streaming:
            sink = None  # one final message
        finishing: asyncio.Task[None] | None = None
        analysis: asyncio.Future[TextAnalysis] | None = None
        fetching: asyncio.Future[list[IncomingFile]] | None = None
        try:
            if message.event_id and not await self._dedupe.first_delivery(
                message.platform, message.event_id
            ):
                log.info("duplicate delivery dropped thread=%s", message.thread_id)
                return None
            turn.lap("dedupe")
            if (stopped := await self._stopped(turn)) is not None:
                await self._finish(turn)
                return stopped
            text = clean_user_text(message.text)
            check_input(text, max_chars=self._max_chars, files=len(message.files))
            if message.files and self._files is not None:  # downloads overlap the lock's wait
                fetching = asyncio.ensure_future(self._files.fetch(message))
            analysis = asyncio.ensure_future(
                self._guardrail.analyze(text, platform=message.platform, policy=turn.scope.policy)
            )
            turn.listing = self._list_tools(turn)  # a stdio server starts: not under the lock
            async with self._locks.hold(message.thread_id), self._in_flight:
                turn.lap("lock_wait")
                reply = await self._guarded(turn, analysis, fetching, sink)
                # Audited while the lock is given back: one round trip's wait, not two.
                finishing = asyncio.create_task(self._finish(turn))
        except InputRejected as exc:
            reply = turn.fail(TurnStatus.REJECTED_INPUT, rejection_reply(exc), exc)
        except GuardrailError as exc:
            reply = turn.fail(
                TurnStatus.GUARDRAIL_ERROR, FAILURE_REPLIES[TurnStatus.GUARDRAIL_ERROR], exc
            )
        except StoreError as exc:
            reply = turn.fail(TurnStatus.STORE_ERROR, FAILURE_REPLIES[TurnStatus.STORE_ERROR], exc)
        except ModelError as exc:
            reply = turn.fail(TurnStatus.MODEL_ERROR, model_reply(exc), exc)
        except Exception as exc:  # noqa: BLE001  (the user gets an answer, the log a location)
            reply = self._unexpected(turn, exc)
        finally:
            for pending in (analysis, fetching, turn.listing):
                if pending is not None:
                    drop_pending(pending)
        await (finishing if finishing is not None else self._finish(turn))
        return None if reply.status is TurnStatus.DROPPED else reply

    def reconfigure(
        self, *, access: AccessRules, limiter: TurnLimiter | None, scopes: Scopes
    ) -> None:
        """Swap the controls (a config reload); turns already past their checks keep theirs."""
        self._access, self._limiter, self._scopes = access, limiter, scopes

    async def _stopped(self, turn: Turn) -> Reply | None:
        """The reply to a turn the access rules or the rate limits stop, before any work."""
        if (refused := self._refusal(turn.message, turn.scope)) is not None:
            turn.record.metadata["refused"] = refused
            return turn.reply(REFUSED_REPLY, TurnStatus.REFUSED)
        if self._limiter is None:
            return None
        throttled = await self._limiter.take(turn.message)
        turn.lap("rate_limit")
        if throttled is None:
            return None
        if not isinstance(throttled, Throttled):
            return _over_budget(turn, throttled)
        turn.record.metadata["rate_limited"] = throttled.limit.kind
        turn.record.metadata["retry_after_s"] = round(throttled.retry_after, 3)
        return turn.reply(throttled_reply(throttled), TurnStatus.RATE_LIMITED)

    def _refusal(self, message: InboundMessage, scope: Scope) -> str | None:
        if not scope.enabled:
            return "disabled"
        return self._access.refusal(message)

    def admits(self, message: InboundMessage) -> bool:
        """Whether the bot answers the author there: enabled, and the access rules let them."""
        return self._refusal(message, self._scopes.of(message)) is None

    def follows_up(self, message: InboundMessage) -> bool:
        """Whether thread replies without a mention are answered where ``message`` was sent."""
        return self._scopes.of(message).follow_ups

    def settings_at(
        self, platform: str, workspace: str | None, channel: str | None, parent: str | None = None
    ) -> str:
        """The effective settings of a channel as chat text, each with its scope."""
        scope = self._scopes.at(platform, workspace, channel, parent)
        where = f"{platform}:{workspace}:{channel}" if channel else f"{platform}:{workspace}"
        return settings_text(where, effective_settings(scope, self._scopes.defaults))

    @property
    def scopes(self) -> Scopes:
        """Every configured scope, resolved (the admin console lists them)."""
        return self._scopes

    async def forget(self, thread_id: ThreadId) -> int:
        """Erase a thread's history and vault while no turn of it runs."""
        return await self._edits.forget(thread_id)

    async def knows_thread(self, thread_id: ThreadId) -> bool:
        """Whether the thread has kept history: the bot takes part in it (follow-ups)."""
        return await self._history.exists(thread_id)

    async def message_deleted(
        self, thread_id: ThreadId, text: str, *, platform: Platform, parent: str = ""
    ) -> int:
        """Drop a deleted user message (and the answer to it) from the thread's history.

        The text is redacted again under the guardrail policy of the thread's scope, as its
        turn was, so the message kept is the one found (``parent``: a Discord thread's channel).
        """
        policy = self._scopes.of_thread(thread_id, parent).policy
        return await self._edits.message_deleted(thread_id, text, platform=platform, policy=policy)

    async def message_edited(
        self, thread_id: ThreadId, before: str, after: str, *, platform: Platform, parent: str = ""
    ) -> int:
        """Keep a user's edited message in place of its earlier text (``ThreadEdits``).

        Both texts go through the guardrail under the policy of the thread's scope.
        """
        policy = self._scopes.of_thread(thread_id, parent).policy
        return await self._edits.message_edited(
            thread_id, before, after, platform=platform, policy=policy
        )

    async def answer_edit(
        self, message: InboundMessage, before: str, sink: ReplySink | None = None
    ) -> Reply | None:
        """A user edited a message: answer it again if it is the thread's last user message.

        Then the old exchange is taken out of the history and the turn runs on the edited text
        (``message``: the message as it reads now, no ``event_id``): the history holds one
        turn, and the returned reply replaces the old answer. An older message, or an edit to
        nothing, is kept as ``message_edited`` keeps it, and ``None`` says nothing is to be
        shown. An edit that arrives while its answer is still being written waits for the
        thread's lock, so it is answered again once that answer is stored. A new turn that
        gives no answer (refused, failed) leaves the old exchange in the history, as people
        still see it: the adapters tell the asker alone.
        """
        tid, platform, parent = message.thread_id, message.platform, message.parent_channel
        policy = self._scopes.of(message).policy
        withdrawn = (
            await self._edits.withdraw_last(tid, before, platform=platform, policy=policy)
            if clean_user_text(message.text)
            else ()
        )
        if not withdrawn:
            await self.message_edited(tid, before, message.text, platform=platform, parent=parent)
            return None
        reply = await self.handle(replace(message, event_id=None), sink)
        if reply is not None and not reply.ok:
            # refused or failed: the adapters tell the asker alone and leave the old answer
            # where people see it, so the exchange goes back, its question kept as edited, as
            # an older edit's is
            await self._edits.restore(tid, withdrawn)
            await self.message_edited(tid, before, message.text, platform=platform, parent=parent)
            return reply
        try:
            await self._edits.settle(tid)
        except StoreError as exc:  # answered; the values edited out go at the next write
            log_failure(log, "vault retention after an edit failed thread=%s", exc, tid)
        return reply

    async def fork(
        self,
        source: ThreadId,
        target: ThreadId,
        span: ForkSpan,
        *,
        workspace: str,
        channel: str,
        user_id: str,
    ) -> Fork:
        """Start ``target`` from the chosen turns of ``source`` (``ThreadForks.fork``).

        Raises:
            InputRejected: a bad selection, an unknown source, a target that is not new, or
                no vault to copy from (this service was built without one).
            StoreError: the stores failed.
        """
        if self._forks is None:
            raise InputRejected("forking is not available here", reason="unavailable")
        platform = target.split(":", 1)[0]  # the new thread's, where its audit run belongs
        return await self._forks.fork(
            source,
            target,
            span,
            platform=platform,  # type: ignore[arg-type]
            workspace=workspace,
            channel=channel,
            user_id=user_id,
        )

    async def _guarded(
        self,
        turn: Turn,
        analysis: Awaitable[TextAnalysis],
        fetching: Awaitable[list[IncomingFile]] | None,
        sink: ReplySink | None,
    ) -> Reply:
        msg, record = turn.message, turn.record
        # The history is read while the guardrail works: it does not depend on the redaction.
        (redaction, restorer, files), history = await asyncio.gather(
            self._anonymized(turn, analysis, fetching), self._history.load(msg.thread_id)
        )
        # The audit keeps the message's text; of its files only the facts, never their text.
        record.prompt, record.entity_counts = redaction.text, files.counts_with(redaction.counts())
        if files.facts:
            record.metadata["files"] = [fact.as_json() for fact in files.facts]
        if redaction.language:
            record.metadata["language"] = redaction.language
        turn.lap("anonymize")
        user = ChatMessage("user", files.after(redaction.text))
        if msg.attempt > 1 and stored_exchange(history, user):
            return await self._replay(turn, history[-1], restorer)
        scope = turn.scope
        system = scope.system or self._system
        messages = fit_to_window(history, user, window_tokens=self._window_tokens, system=system)
        record.metadata["context_messages"] = len(messages)
        if scope.name:
            record.metadata["scope"] = scope.name
        request = ModelRequest(
            system=system,
            messages=messages,
            model=scope.model,
            max_tokens=scope.max_tokens,
            provider=scope.provider,
            images=files.images,
        )
        request = await self._offer_tools(turn, request)
        if await _withdrawn(turn):
            return await self._dropped(turn)
        if (spent := await self._hold(turn, request)) is not None:
            return spent
        rounds = self._rounds(turn, request)
        if rounds is None:
            result, restored = await self._ask(turn, request, restorer, sink)
        else:
            result, restored = await self._ask_with_tools(turn, request, restorer, sink, rounds)
            if result.tool_calls or (rounds.must_answer() and not result.text.strip()):
                turn.record.metadata["tool_rounds_exhausted"] = True
                return turn.reply(TOOLS_EXHAUSTED_REPLY, TurnStatus.MODEL_ERROR)
        if not result.text.strip():
            return turn.reply(MODEL_EMPTY_REPLY, TurnStatus.MODEL_ERROR)
        count_placeholders(record, restored)
        stored = await self._guardrail.scan_output(
            msg.thread_id, result.text, platform=msg.platform
        )
        record.answer = stored.text
        turn.lap("output_scan")
        # What retention must look at beside the messages the write drops: what this turn
        # (and a turn that kept nothing) placed, and what the output scan placed since.
        placed = {*restorer.placeholders, *(e.placeholder for e in stored.entities)}
        if rounds is not None:
            placed |= rounds.placed
        answer = ChatMessage("assistant", stored.text, tuple(rounds.uses) if rounds else ())
        if await _withdrawn(turn):  # uninstalled while the model answered: keep nothing
            return await self._dropped(turn)
        return await self._remember(turn, history, (user, answer), restored, sink, placed)

    async def _hold(self, turn: Turn, request: ModelRequest) -> Reply | None:
        """Hold the call's most possible cost against the turn's budgets; the refusal if spent.

        The turn's settle (``finish``) gives the hold back with the real cost.
        """
        most = self._model.max_cost(request)
        if most is not None and request.tools and self._tools is not None:
            most *= self._tools.max_rounds + 1  # each round is a model call
        held = await self.budgets.reserve(turn.message, turn.record.run_id, most)
        turn.lap("budget_hold")
        if isinstance(held, OverBudget):
            return _over_budget(turn, held)
        turn.hold = held
        return None

    def _list_tools(self, turn: Turn) -> asyncio.Future[tuple[ToolSpec, ...]] | None:
        """The listing of the tools the turn's place may use, begun; ``None``: no tools."""
        if self._tools is None:
            return None
        scope = turn.scope
        asked = ModelRequest(system="", messages=(), model=scope.model, provider=scope.provider)
        if not self._model.takes_tools(asked):
            return None
        return asyncio.ensure_future(self._tools.offered(turn.message))

    async def _offer_tools(self, turn: Turn, request: ModelRequest) -> ModelRequest:
        """``request`` with the tools the turn's place may use, if its model takes tools."""
        if turn.listing is None:
            return request
        offered = await turn.listing
        turn.lap("tools_list")
        return replace(request, tools=offered) if offered else request

    def _rounds(self, turn: Turn, request: ModelRequest) -> ToolRounds | None:
        if not request.tools or self._tools is None:
            return None
        return ToolRounds(self._tools, self._guardrail, turn, request.tools)

    async def _ask_with_tools(
        self,
        turn: Turn,
        request: ModelRequest,
        restorer: StreamRestorer,
        sink: ReplySink | None,
        rounds: ToolRounds,
    ) -> tuple[ModelResult, Restoration]:
        """Model calls and tool rounds until the model answers (or must: rounds, deadline).

        Each call's text is part of the answer (streamed as it comes); the calls' usage and
        cost are summed into the turn's.
        """
        shown = None if sink is None else CountedSink(sink)
        total = await rounds.answer(self._model, request, restorer, shown)
        turn.lap("model")
        turn.used(total)
        if shown is None:
            restored = await restore(restorer, total.text)
        else:
            await restorer.fetch("", end=True)
            restored = restorer.finish()
            if tail := restored.text[shown.chars :]:  # what the restorer held back at the end
                await shown.delta(tail)
            turn.record.metadata["streamed"] = True
        turn.lap("deanonymize")
        return total, restored

    async def _anonymized(
        self,
        turn: Turn,
        analysis: Awaitable[TextAnalysis],
        fetching: Awaitable[list[IncomingFile]] | None,
    ) -> tuple[Redaction, StreamRestorer, FileIntake]:
        """The message's files, then its text, placed in the thread's vault.

        The files go first so that the restorer (the vault as the text's placement leaves it)
        also knows the placeholders the files were given.
        """
        msg = turn.message
        files = FileIntake()
        if fetching is not None and self._files is not None:
            downloaded = await fetching
            turn.lap("files_fetch")
            files = await self._files.redact(
                msg.thread_id,
                downloaded,
                platform=msg.platform,
                policy=turn.scope.policy,
                images=turn.scope.images,
            )
            turn.lap("files_redact")
        redaction, restorer = await self._guardrail.anonymize_turn(
            msg.thread_id, analysis, private=msg.private
        )
        return redaction, restorer, files

    async def _dropped(self, turn: Turn) -> Reply:
        """End a withdrawn turn: its workspace is being erased, so is what this turn placed.

        The erasure may have run while this turn was detecting or placing values, and the
        placement then wrote the thread's vault again; the thread's lock is held here.
        """
        await self._history.erase(turn.message.thread_id)
        return turn.reply("", TurnStatus.DROPPED)

    async def _replay(self, turn: Turn, answer: ChatMessage, restorer: StreamRestorer) -> Reply:
        """The answer an earlier attempt stored but never delivered: give it, store nothing.

        Asking again would keep the exchange twice in the history (the model would see the
        question twice from then on), and bill a second answer.
        """
        restored = await restore(restorer, answer.text)
        turn.record.answer = answer.text
        turn.record.metadata["replayed"] = True
        turn.lap("replay")
        log.info("answer stored by an earlier attempt given again run=%s", turn.record.run_id)
        return turn.reply(restored.text, TurnStatus.OK)

    async def _ask(
        self, turn: Turn, request: ModelRequest, restorer: StreamRestorer, sink: ReplySink | None
    ) -> tuple[ModelResult, Restoration]:
        if sink is None:
            result = await self._model.complete(request)
            turn.lap("model")
            turn.used(result)
            restored = await restore(restorer, result.text)
            turn.lap("deanonymize")
            return result, restored
        stream = self._model.stream(request)
        shown: list[str] = []
        async for delta in stream:
            await restorer.fetch(delta)  # the values of the placeholders it completes, only
            visible = restorer.feed(delta)
            if visible:
                shown.append(visible)
                await sink.delta(visible)
        await restorer.fetch("", end=True)
        restored = restorer.finish()
        tail = restored.text[sum(map(len, shown)) :]
        if tail:
            await sink.delta(tail)
        turn.lap("model")
        turn.used(stream.result)
        turn.record.metadata["streamed"] = True
        return stream.result, restored

    async def _remember(
        self,
        turn: Turn,
        history: list[ChatMessage],
        exchange: tuple[ChatMessage, ChatMessage],
        restored: Restoration,
        sink: ReplySink | None,
        placed: set[str],
    ) -> Reply:
        streamed = sink is not None
        try:
            # ``history`` was read under this turn's lock: the store need not read it back.
            kept = await self._history.append(turn.message.thread_id, exchange, after=history)
        except StoreError as exc:
            # The answer is computed and paid for: deliver it, say it was not saved.
            turn.record.error = f"{type(exc).__name__}: {exc}"
            turn.lap("history_append")
            return turn.reply(restored.text + NOT_SAVED_NOTE, TurnStatus.STORE_ERROR)
        turn.lap("history_append")
        try:
            await self._guardrail.retain(
                turn.message.thread_id,
                [m.all_text for m in kept],
                dropped=_dropped([*history, *exchange], kept),
                placed=placed,
            )
        except StoreError as exc:  # answered and saved; the values go at the next write
            log_failure(log, "vault retention failed run=%s", exc, turn.record.run_id)
        turn.lap("retain")
        return turn.reply(restored.text, TurnStatus.OK, streamed=streamed)

    def _unexpected(self, turn: Turn, exc: Exception) -> Reply:
        log_failure(log, "turn failed run=%s", exc, turn.record.run_id)
        turn.record.error = describe(exc)
        return turn.reply(INTERNAL_REPLY, TurnStatus.INTERNAL_ERROR)

    async def _finish(self, turn: Turn) -> None:
        await finish(turn, self._audit, self.budgets, self._metrics)


def _over_budget(turn: Turn, over: OverBudget) -> Reply:
    """The reply to a turn a spent budget refuses; the audit says which budget."""
    turn.record.metadata["over_budget"] = over.budget.kind
    return turn.reply(over_budget_reply(over), TurnStatus.OVER_BUDGET)


def _dropped(written: list[ChatMessage], kept: list[ChatMessage]) -> list[str] | None:
    """The texts the history write trimmed off the front, ``None`` when it kept another list."""
    cut = len(written) - len(kept)
    if cut < 0 or written[cut:] != kept:  # the same objects when the write trimmed only
        return None
    return [m.all_text for m in written[:cut]]


async def _withdrawn(turn: Turn) -> bool:
    """Whether the turn's queued message was withdrawn (dropped from the queue) meanwhile."""
    check = turn.message.withdrawn
    if check is None or not await check():
        return False
    turn.record.metadata["dropped"] = "withdrawn"
    log.info("queued turn withdrawn while it ran run=%s", turn.record.run_id)
    return True


OFF_LOOP_CHARS = 4000
"""A longer answer is restored in a worker thread: an answer that echoes a long pasted log
with hundreds of placeholders took ~10 ms, every other event's ack waiting behind it."""


async def restore(restorer: StreamRestorer, text: str) -> Restoration:
    """The whole ``text`` through ``restorer``, off the event loop when it is long."""
    await restorer.fetch(text, end=True)
    if len(text) <= OFF_LOOP_CHARS:
        return _restored(restorer, text)
    return await asyncio.to_thread(_restored, restorer, text)


def _restored(restorer: StreamRestorer, text: str) -> Restoration:
    restorer.feed(text)
    return restorer.finish()
