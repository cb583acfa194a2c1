"""A turn's tool rounds: the model asks for tools, the guardrail stands between it and them.

```
model ─▶ tool_use ─▶ arguments: placeholders checked against the thread's vault
                      (filled with its values only for a reveal = true server)
       ─▶ the calls, in parallel ─▶ each result analysed and anonymized with the thread's vault
       ─▶ model ... up to max_rounds and the deadline; then the model must answer
```

A tool's failure, a timeout, an oversized result or a placeholder the thread does not have
becomes an error result the model reads, never a failed turn. What the model and the stores
see of a call is placeholder text: its arguments as the model wrote them (the output scan
applied, for what the model made up) and its result as the guardrail left it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bot.core.errors import GuardrailError, InputRejected, StoreError
from bot.core.ports import Guardrail, ModelClient, ReplySink, StreamRestorer, ToolBox
from bot.core.turn import Turn
from bot.core.types import (
    ModelRequest,
    ModelResult,
    ToolCall,
    ToolOutput,
    ToolSpec,
    ToolUse,
    Usage,
)

log = logging.getLogger(__name__)

ROUND_BREAK = "\n\n"
"""Between the texts of two model calls of one answer."""


@dataclass(slots=True)
class ToolRounds:
    """One turn's tool calls so far, and what the audit keeps of them."""

    tools: ToolBox
    guardrail: Guardrail
    turn: Turn
    offered: tuple[ToolSpec, ...]
    started: float = field(default_factory=time.monotonic)
    uses: list[ToolUse] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    placed: set[str] = field(default_factory=set)
    """The placeholders the results were given: retention's candidates, as the answer's are."""
    rounds: int = 0

    def left(self) -> float:
        """Seconds left of the turn's tool deadline."""
        return self.tools.deadline_seconds - (time.monotonic() - self.started)

    def must_answer(self) -> bool:
        """Whether the next model call must answer: rounds or time used up."""
        return self.rounds >= self.tools.max_rounds or self.left() <= 0

    async def answer(
        self,
        model: ModelClient,
        request: ModelRequest,
        restorer: StreamRestorer,
        sink: ReplySink | None,
    ) -> ModelResult:
        """Model calls and tool rounds until the model answers (or must: rounds, deadline).

        Each call's text is part of the answer (streamed through ``restorer`` to ``sink`` as
        it comes); the calls' usage and cost are summed. The result's ``tool_calls`` are not
        empty when the last call still asked for tools instead of answering.
        """
        results: list[ModelResult] = []
        texts: list[str] = []
        while True:
            asked = replace(request, pending=tuple(self.uses), answer_now=self.must_answer())
            if sink is None:
                result = await model.complete(asked)
            else:
                result = await _streamed(model, asked, restorer, sink, gap=bool(texts))
            results.append(result)
            if result.text:
                texts.append(result.text)
            if not result.tool_calls or asked.answer_now:
                return combined(results, ROUND_BREAK.join(texts))
            await self.run(result.tool_calls)

    async def run(self, asked: tuple[ToolCall, ...]) -> None:
        """Make one round's calls (in parallel: the model asked for them together)."""
        round_no = self.rounds
        self.rounds += 1
        await self._show_status(asked)
        tasks = [asyncio.ensure_future(self._one(call, round_no)) for call in asked]
        try:
            await asyncio.wait(tasks, timeout=max(self.left(), 0.001))
        finally:  # the deadline, or the turn itself cancelled: no call outlives it
            late = [task for task in tasks if not task.done()]
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        for call, task in zip(asked, tasks, strict=True):
            if not task.cancelled() and task.exception() is None:
                use, entry = task.result()
            else:
                use, entry = self._unfinished(call, task, round_no)
            self.uses.append(use)
            self.calls.append(entry)
        self.turn.record.metadata["tools"] = self.calls
        self.turn.record.metadata["tool_rounds"] = self.rounds

    def _unfinished(
        self, call: ToolCall, task: asyncio.Future[Any], round_no: int
    ) -> tuple[ToolUse, dict[str, Any]]:
        """The error result of a call stopped at the deadline, or failed in veilbot's code."""
        if task.cancelled():
            note, status = "the turn's time for tools ran out before this call finished", "timeout"
        else:
            log.warning(
                "tool call failed run=%s error=%s",
                self.turn.record.run_id,
                type(task.exception()).__name__,
            )
            note, status = "the tool call failed inside veilbot", "error"
        entry = {"tool": call.name, "status": status, "ms": 0, "entities": {}}
        return ToolUse(call.id, call.name, "{}", note, True, round_no), entry

    async def _show_status(self, asked: tuple[ToolCall, ...]) -> None:
        """Tell the adapter which tools run (their names only): never the turn's problem."""
        show = self.turn.message.status
        if show is None:
            return
        names = sorted({call.name.rpartition("__")[2] or call.name for call in asked})
        try:
            await show(f"is looking up {', '.join(names)}…")
        except Exception as exc:  # noqa: BLE001  (a status is a courtesy, never a failure)
            log.debug("tool status not shown error=%s", type(exc).__name__)

    async def _one(self, call: ToolCall, round_no: int) -> tuple[ToolUse, dict[str, Any]]:
        began = time.perf_counter()
        tid = self.turn.message.thread_id
        stored = await self._stored_arguments(call)
        entry: dict[str, Any] = {"tool": call.name, "arguments": stored, "entities": {}}
        output, sent = await self._call(call)
        entry.update(server=output.server, status=output.status)
        text, failed = output.text, not output.ok
        if output.ok or output.status == "error":  # the server's own words may name people
            try:
                redaction = await self.guardrail.anonymize(
                    tid,
                    text,
                    platform=self.turn.message.platform,
                    policy=self.turn.scope.policy,
                    sent=sent,
                )
            except (GuardrailError, InputRejected, StoreError) as exc:
                # Fail closed: a result the guardrail could not read never reaches the model.
                log.warning(
                    "tool result not checked run=%s tool=%s error=%s",
                    self.turn.record.run_id,
                    call.name,
                    type(exc).__name__,
                )
                text, failed = "the tool's result could not be checked for personal data", True
                entry["status"] = "guardrail_error"
            else:
                text = redaction.text
                entry["entities"] = redaction.counts()
                self.placed.update(e.placeholder for e in redaction.entities)
        entry["ms"] = round((time.perf_counter() - began) * 1000, 3)
        log.info(
            "tool call run=%s tool=%s status=%s entities=%d ms=%.1f",
            self.turn.record.run_id,
            call.name,
            entry["status"],
            sum(entry["entities"].values()),
            entry["ms"],
        )
        return ToolUse(call.id, call.name, stored, text, failed, round_no), entry

    async def _stored_arguments(self, call: ToolCall) -> str:
        """The model's arguments as kept: placeholder text, what it made up itself redacted."""
        written = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
        scanned = await self.guardrail.scan_output(
            self.turn.message.thread_id, written, platform=self.turn.message.platform
        )
        return scanned.text

    async def _call(self, call: ToolCall) -> tuple[ToolOutput, list[str]]:
        """The tool's output, or why it was not called (an unknown tool or placeholder).

        Also the arguments' texts as the server got them when they held placeholders (a
        server without ``reveal``): the thread's own placeholders that its result quotes.
        """
        if call.name not in {t.name for t in self.offered}:
            return ToolOutput(f"there is no tool named {call.name!r}", "unknown_tool"), []
        strings: list[str] = []
        _walk(call.arguments, lambda s: _kept(strings, s))
        filled, missing = await self.guardrail.fill(self.turn.message.thread_id, strings)
        if missing:
            names = ", ".join(sorted(missing))
            return ToolOutput(
                f"unknown placeholder {names}: this conversation has no such value, so the "
                "tool was not called; ask the user for it",
                "unknown_placeholder",
            ), []
        if not self.tools.reveals(call.name):
            return await self.tools.call(call.name, call.arguments), strings
        values = iter(filled)
        arguments = _walk(call.arguments, lambda _: next(values))
        return await self.tools.call(call.name, arguments), []


class CountedSink:
    """A ``ReplySink`` that counts the characters it passed on."""

    def __init__(self, sink: ReplySink) -> None:
        self._sink = sink
        self.chars = 0

    async def delta(self, text: str) -> None:
        """Show ``text`` through the wrapped sink."""
        self.chars += len(text)
        await self._sink.delta(text)


async def _streamed(
    model: ModelClient,
    request: ModelRequest,
    restorer: StreamRestorer,
    sink: ReplySink,
    *,
    gap: bool,
) -> ModelResult:
    """One model call of a tool turn, streamed; ``gap``: an earlier call wrote text."""
    stream = model.stream(request)
    first = True
    async for delta in stream:
        text = ROUND_BREAK + delta if first and gap else delta
        first = False
        await restorer.fetch(text)
        if visible := restorer.feed(text):
            await sink.delta(visible)
    return stream.result


def _kept(found: list[str], text: str) -> str:
    found.append(text)
    return text


def _walk(value: Any, each: Callable[[str], Any]) -> Any:
    """``value`` (JSON) with each string replaced by ``each(string)``, in reading order."""
    if isinstance(value, str):
        return each(value)
    if isinstance(value, dict):
        return {k: _walk(v, each) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, each) for v in value]
    return value


def combined(results: list[ModelResult], text: str) -> ModelResult:
    """One result for a turn's model calls: usage and cost summed, the answer's text."""
    last = results[-1]
    usage = Usage(
        input_tokens=sum(r.usage.input_tokens for r in results),
        output_tokens=sum(r.usage.output_tokens for r in results),
        cache_read_tokens=sum(r.usage.cache_read_tokens for r in results),
        cache_write_tokens=sum(r.usage.cache_write_tokens for r in results),
    )
    costs = [r.cost_usd for r in results]
    cost = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
    return ModelResult(
        text=text,
        model=last.model,
        usage=usage,
        cost_usd=cost,
        stop_reason=last.stop_reason,
        provider=last.provider,
        cost_note=last.cost_note,
        tool_calls=last.tool_calls,
    )
