"""Batching of concurrent detections: callers await one text each, waiting texts go together.

Texts that arrive while every slot (a worker process, or the detection thread) is at work
wait here and go together, as one task, to the next slot that frees: the worker runs
``detect_many`` (one NER pass for all of them) and the per-task costs are paid once per
batch. A lone text is sent at once. Each caller gets its own text's detections or its own
``GuardrailError``; the text of a caller cancelled while it waits is never sent, and the
answer to one cancelled after is dropped.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.core.errors import GuardrailError
from bot.core.scopes import PolicyOverride
from bot.core.types import Platform
from guardrails.text.spans import Detection

MAX_BATCH_TEXTS = 32
"""Most texts analysed in one batch."""
BATCH_CHUNKS = 8
"""A batch holds at most this many chunks' worth of characters (but always one text)."""
"""A batch holds at most this many chunks' worth of characters (but always one text)."""
DEFAULT_CHUNK_CHARS = 4000
"""Longest text analysed in one NER pass; longer texts are split with an overlap."""

Item = tuple[str, Platform, bool, PolicyOverride | None]  # text, platform, prose, scope's policy
Outcome = list[Detection] | Exception


def _failed_on(exc: BaseException) -> GuardrailError:
    error = GuardrailError(f"PII detection failed ({type(exc).__name__}); fail closed")
    error.__cause__ = exc
    return error


@dataclass(slots=True)
class _Request:
    item: Item
    answer: asyncio.Future[list[Detection]]


class Batches:
    """Texts waiting for a free slot; each free slot takes its share of them (up to the caps).

    A share is the texts waiting or in flight over the slots, so the workers get batches of
    about the same size, not one large one that makes its texts wait longest.

    ``send`` hands a batch over at once (the submission happens before it returns) and gives
    a future of one outcome per text; at most ``slots`` batches are in flight.
    """

    def __init__(
        self,
        send: Callable[[list[Item]], asyncio.Future[list[Outcome]]],
        slots: int,
        max_chars: int,
    ) -> None:
        self._send, self.slots, self._max_chars = send, slots, max_chars
        self._waiting: deque[_Request] = deque()
        self._in_flight = 0
        self._texts_in_flight = 0

    async def detect(self, item: Item) -> list[Detection]:
        """The outcome of ``item``: its detections, or ``GuardrailError``."""
        answer: asyncio.Future[list[Detection]] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Request(item, answer))
        self._dispatch()
        return await answer  # cancelled with its caller: its outcome is then dropped

    def _dispatch(self) -> None:
        while self._waiting and self._in_flight < self.slots:
            batch = self._take()
            if not batch:
                return
            try:
                sent = self._send([r.item for r in batch])
            except Exception as exc:  # noqa: BLE001  (each caller gets it: fail closed)
                self._answer(batch, [exc] * len(batch))
                continue
            self._in_flight += 1
            self._texts_in_flight += len(batch)
            sent.add_done_callback(functools.partial(self._done, batch))

    def _take(self) -> list[_Request]:
        """The next batch, callers cancelled while waiting left out."""
        batch: list[_Request] = []
        chars = 0
        share = -(-(len(self._waiting) + self._texts_in_flight) // self.slots)
        while self._waiting and len(batch) < min(share, MAX_BATCH_TEXTS):
            request = self._waiting[0]
            if not request.answer.done():
                chars += len(request.item[0])
                if batch and chars > self._max_chars:
                    break
                batch.append(request)
            self._waiting.popleft()
        return batch

    def _done(self, batch: list[_Request], done: asyncio.Future[list[Outcome]]) -> None:
        try:
            if done.cancelled():
                self._answer(batch, [asyncio.CancelledError()] * len(batch))
            elif (exc := done.exception()) is not None:
                self._answer(batch, [exc] * len(batch))
            else:
                self._answer(batch, done.result())
        finally:
            # The slot frees once the callers just answered have run: a caller that asks
            # again at once joins the next batch instead of taking the slot alone.
            asyncio.get_running_loop().call_soon(self._release, len(batch))

    def _release(self, texts: int) -> None:
        self._in_flight -= 1
        self._texts_in_flight -= texts
        self._dispatch()

    @staticmethod
    def _answer(batch: list[_Request], outcomes: Sequence[Outcome | BaseException]) -> None:
        """Each caller that still waits its own outcome: detections or ``GuardrailError``."""
        for request, outcome in zip(batch, outcomes, strict=True):
            if request.answer.done():
                continue  # its caller was cancelled
            if isinstance(outcome, BaseException):
                request.answer.set_exception(_failed_on(outcome))
            else:
                request.answer.set_result(outcome)
