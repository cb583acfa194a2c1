"""The ports of the core: small Protocols that backends and adapters implement.

``bot/core/conversation.py`` is written against these only. Imports here are limited to
``bot.core.types`` and ``bot.core.errors``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import Any, Protocol

from bot.core.attachments import FileIntake, IncomingFile
from bot.core.budgets import BudgetNotice, Hold, OverBudget
from bot.core.fork import Fork, ForkSpan
from bot.core.limits import Throttled
from bot.core.scopes import ImagePolicy, PolicyOverride
from bot.core.types import (
    AdminReply,
    AuditRecord,
    ChatMessage,
    InboundMessage,
    ModelRequest,
    ModelResult,
    Platform,
    QueuedEvent,
    Redaction,
    Reply,
    Restoration,
    TextAnalysis,
    ThreadId,
    ToolOutput,
    ToolSpec,
)


class HistoryStore(Protocol):
    """A thread's placeholder-only history."""

    async def load(self, thread_id: ThreadId) -> list[ChatMessage]:
        """All kept messages of the thread, oldest first (one round trip)."""
        ...

    async def append(
        self,
        thread_id: ThreadId,
        messages: Sequence[ChatMessage],
        *,
        after: Sequence[ChatMessage] | None = None,
    ) -> list[ChatMessage]:
        """Append messages in one atomic write that trims and refreshes the thread's TTL.

        ``after``: the history as the caller loaded it under the thread's lock; the store may
        then build the result from it instead of reading the whole history back.

        Returns:
            The thread's kept messages after the write, oldest first (as ``load`` would).
        """
        ...

    async def exists(self, thread_id: ThreadId) -> bool:
        """Whether the thread has any kept history."""
        ...

    async def erase(self, thread_id: ThreadId) -> int:
        """Delete the thread's history and vault; returns the number of keys removed."""
        ...

    async def remove_user_message(self, thread_id: ThreadId, text: str) -> int:
        """Remove a user message (placeholder text) and the answer that followed it."""
        ...

    async def replace_user_message(self, thread_id: ThreadId, text: str, new_text: str) -> int:
        """Rewrite a user message (placeholder text) in place: an edit; 1 if one was found."""
        ...


class VaultCopier(Protocol):
    """Gives a forked thread the vault values of its kept messages, and only those."""

    async def copy(self, source: ThreadId, target: ThreadId, kept: Sequence[str]) -> int:
        """Copy the values of ``source`` the ``kept`` texts refer to into ``target``'s vault.

        The values keep their placeholders; ``target``'s vault must not exist yet.

        Returns:
            How many values were copied.

        Raises:
            InputRejected: ``target`` has a vault already.
            StoreError: a vault could not be read or written.
        """
        ...


class ThreadLocks(Protocol):
    """Mutual exclusion per thread, across processes."""

    def hold(self, thread_id: ThreadId) -> AbstractAsyncContextManager[None]:
        """Hold the thread's lock for the duration of the block."""
        ...


class EventDedupe(Protocol):
    """Remembers platform deliveries so a redelivered event is answered once."""

    async def first_delivery(self, platform: str, event_id: str) -> bool:
        """``True`` the first time an event id is seen, ``False`` afterwards."""
        ...


class StreamRestorer(Protocol):
    """Turns a streamed placeholder answer into user text, delta by delta."""

    @property
    def placeholders(self) -> Collection[str]:
        """Placeholders retention looks at: new this turn, or placed by a turn that kept none."""
        ...

    async def fetch(self, delta: str, *, end: bool = False) -> None:
        """Fetch the values of the placeholders ``delta`` completes; call before ``feed(delta)``.

        Only what the answer uses is fetched (a streamed answer, delta by delta); ``end``: the
        answer is complete (``delta`` is its last part, or empty), call before ``finish``.

        Raises:
            StoreError: the values could not be fetched.
        """
        ...

    def feed(self, delta: str) -> str:
        """Accept a delta; return what can be shown now (never half a placeholder)."""
        ...

    def finish(self) -> Restoration:
        """Flush what was held back; the whole restored answer and its counters.

        ``finish().text`` is everything ``feed`` returned, followed by the held-back tail.
        """
        ...


class Guardrail(Protocol):
    """Replaces personal data by placeholders and back, per thread."""

    async def anonymize(
        self,
        thread_id: ThreadId,
        text: str,
        *,
        platform: Platform,
        policy: PolicyOverride | None = None,
        ocr: bool = False,
        sent: Sequence[str] = (),
    ) -> Redaction:
        """Replace personal data in a user's text by this thread's placeholders.

        ``policy``: the scope's changes to the guardrail policy (``None``: the service's).
        ``ocr``: the text was read from a picture by OCR; OCR's slips inside values
        ("jane.doe@example. com") are allowed for, which typed text does not get.
        ``sent``: texts this thread sent out with its placeholders in them (a tool call's
        arguments): a placeholder of theirs that ``text`` quotes back stays the thread's
        own, where any other placeholder-shaped text is kept as typed.

        Raises:
            GuardrailError: detection could not run; the caller must not call the model.
            StoreError: the vault could not be read or written.
        """
        ...

    async def restorer(
        self, thread_id: ThreadId, *, platform: Platform, private: bool
    ) -> StreamRestorer:
        """A restorer bound to this thread's vault and the audience's reveal policy."""
        ...

    async def analyze(
        self, text: str, *, platform: Platform, policy: PolicyOverride | None = None
    ) -> TextAnalysis:
        """Detect the personal data in a user's text; no thread's state is read.

        ``policy``: the scope's changes to the guardrail policy (``None``: the service's).

        Raises:
            GuardrailError: detection could not run; the caller must not call the model.
        """
        ...

    async def anonymize_turn(
        self, thread_id: ThreadId, analysis: Awaitable[TextAnalysis], *, private: bool
    ) -> tuple[Redaction, StreamRestorer]:
        """The redaction of an ``analyze`` result, and a restorer of the vault it leaves.

        For a caller that holds the thread's lock: the guardrail reads the vault once for
        both, while ``analysis`` (begun before the lock was taken) may still be running.

        Raises:
            GuardrailError: detection could not run; the caller must not call the model.
            StoreError: the vault could not be read or written.
        """
        ...

    async def fill(self, thread_id: ThreadId, texts: Sequence[str]) -> tuple[list[str], set[str]]:
        """``texts`` with this thread's placeholders replaced by their values (a tool's call).

        Returns:
            The filled texts, and the placeholders they hold that the thread's vault lacks
            (left as written: the caller must not use the texts then).

        Raises:
            StoreError: the vault could not be read.
        """
        ...

    async def scan_output(self, thread_id: ThreadId, text: str, *, platform: Platform) -> Redaction:
        """Redact personal data the model produced itself, for the stored copy of an answer."""
        ...

    async def retain(
        self,
        thread_id: ThreadId,
        kept: Sequence[str],
        *,
        dropped: Sequence[str] | None = None,
        placed: Collection[str] = (),
    ) -> int:
        """Forget the thread's values that none of the ``kept`` texts (its history) refers to.

        ``dropped``: the texts the history write removed, when the caller knows them (under
        the thread's lock); then only their placeholders and ``placed`` (the restorer's
        ``placeholders``) are candidates, and with none the store is not asked.

        Returns:
            How many values were forgotten.

        Raises:
            StoreError: the vault could not be read or written.
        """
        ...


class ModelStream(Protocol):
    """An answer being streamed: iterate for text deltas, then read ``result``."""

    def __aiter__(self) -> AsyncIterator[str]:
        """Text deltas in placeholder form."""
        ...

    @property
    def result(self) -> ModelResult:
        """The finished answer; only valid after iteration ended."""
        ...


class ModelClient(Protocol):
    """The language model behind the bot."""

    @property
    def model(self) -> str:
        """The model name, for audit and pricing."""
        ...

    async def complete(self, request: ModelRequest) -> ModelResult:
        """One answer at once.

        Raises:
            ModelUnavailable: retryable failure after the configured retries (rate limited,
                overloaded, timed out, unreachable).
            ModelRejected: the request itself was refused.
            ModelMisconfigured: bad credentials, no permission, unknown model.
        """
        ...

    def stream(self, request: ModelRequest) -> ModelStream:
        """The same answer as a stream of text deltas (same errors as ``complete``)."""
        ...

    def takes_tools(self, request: ModelRequest) -> bool:
        """Whether the client that answers ``request`` offers the model tools (``tools``)."""
        ...

    def max_cost(self, request: ModelRequest) -> float | None:
        """The most ``request`` can cost in US dollars (what a turn holds of its budgets).

        Its whole input at the dearest input price and ``max_tokens`` of output; ``None``
        when the model has no known price.
        """
        ...

    async def aclose(self) -> None:
        """Release connections; the composition root calls it at shutdown."""
        ...


class ToolBox(Protocol):
    """The tools (MCP servers) a turn may offer the model, and their calls."""

    max_rounds: int
    """Model calls of one turn that may ask for tools; the next one must answer."""
    deadline_seconds: float
    """The time a turn's tool rounds may take together."""

    async def offered(self, message: InboundMessage) -> tuple[ToolSpec, ...]:
        """The tools the message's place may use; a server that cannot list them gives none."""
        ...

    def reveals(self, name: str) -> bool:
        """Whether the tool's server is given the thread's real values (``reveal = true``)."""
        ...

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutput:
        """Call one tool; never raises: a failure, timeout or oversized result is an error."""
        ...


class AuditStore(Protocol):
    """The redacted record of every turn."""

    async def record(self, record: AuditRecord) -> None:
        """Persist one turn's record (placeholder text only)."""
        ...


class ReplySink(Protocol):
    """Where an adapter receives a streamed answer, already restored for the user."""

    async def delta(self, text: str) -> None:
        """Show more of the answer."""
        ...


class TurnLimiter(Protocol):
    """Rate limits per user and per channel, shared by every replica."""

    async def take(self, message: InboundMessage) -> Throttled | OverBudget | None:
        """Charge one turn to ``message``'s limits; why not (charging none) when one is spent.

        ``OverBudget`` when a monthly budget of the turn is spent, ``Throttled`` when a rate
        limit is.

        Raises:
            StoreError: the limits' store cannot be reached.
        """
        ...


class SpendLedger(Protocol):
    """Monthly spend per budget, shared by every replica (``bot.core.budgets``)."""

    async def reserve(
        self, message: InboundMessage, run_id: str, max_cost_usd: float
    ) -> Hold | OverBudget:
        """Hold ``max_cost_usd`` against the turn's budgets, or refuse when one is spent.

        A budget is spent when its month's spend and the holds of the turns in flight reach
        its limit; checking and holding are one atomic step, so concurrent turns see each
        other's holds. A hold not settled lapses after a while (its turn died).

        Raises:
            StoreError: the spend's store cannot be reached.
        """
        ...

    async def charge(
        self, message: InboundMessage, cost_usd: float, hold: Hold | None = None
    ) -> list[BudgetNotice]:
        """Add a turn's cost to its budgets, releasing its ``hold``; the notices due now (once).

        Raises:
            StoreError: the spend's store cannot be reached.
        """
        ...


class AdminNotifier(Protocol):
    """Tells a platform's admins something privately (a budget notice)."""

    async def notify_admins(self, workspace: str, text: str) -> int:
        """Send ``text`` to the admins of ``workspace``; how many got it."""
        ...


class MessageHandler(Protocol):
    """What adapters call: the guarded turn."""

    async def handle(self, message: InboundMessage, sink: ReplySink | None = None) -> Reply | None:
        """Run one turn. ``None`` means a duplicate delivery that must not be answered."""
        ...

    def admits(self, message: InboundMessage) -> bool:
        """Whether the access rules let the author use the bot there; records nothing.

        ``handle`` decides again (and audits a refusal); an adapter asks first only to avoid
        opening a thread for someone who will be refused.
        """
        ...

    async def forget(self, thread_id: ThreadId) -> int:
        """Erase a thread's history and vault (the ``forget`` command)."""
        ...

    async def message_deleted(
        self, thread_id: ThreadId, text: str, *, platform: Platform, parent: str = ""
    ) -> int:
        """A user deleted a message: drop it (and its answer) from the thread's history.

        ``parent``: the channel a Discord thread belongs to (whose scope it takes).
        """
        ...

    async def message_edited(
        self, thread_id: ThreadId, before: str, after: str, *, platform: Platform, parent: str = ""
    ) -> int:
        """A user edited a message: keep the new text (through the guardrail) in its place."""
        ...

    async def answer_edit(
        self, message: InboundMessage, before: str, sink: ReplySink | None = None
    ) -> Reply | None:
        """A user edited a message that read ``before``; ``message`` is it as it reads now.

        The thread's last user message is answered again, its old exchange replaced in the
        history: the reply is to be shown in place of the old answer. Any other is kept as
        ``message_edited`` keeps it, and ``None`` is returned (nothing to show).
        """
        ...

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
        """Start the new thread ``target`` from the chosen turns of ``source`` (``fork``).

        Raises:
            InputRejected: a bad selection, an unknown source, or a target that is not new
                (the message says which, for the user).
            StoreError: the stores failed; nothing of the fork is left.
        """
        ...

    def follows_up(self, message: InboundMessage) -> bool:
        """Whether thread replies without a mention are answered where ``message`` was sent."""
        ...

    def settings_at(
        self, platform: str, workspace: str | None, channel: str | None, parent: str | None = None
    ) -> str:
        """The effective settings of a channel as chat text (for admins: ``settings``)."""
        ...

    async def knows_thread(self, thread_id: ThreadId) -> bool:
        """Whether the thread has a conversation with the bot (kept history).

        Adapters use it to answer follow-ups without a new mention in a thread the bot was
        mentioned in, without holding state of their own (replicas share only the stores).
        """
        ...


class Sealer(Protocol):
    """Encrypts values that must rest in a store with raw user text inside.

    With a key ring: seals with the current key, opens with any (key rotation).
    """

    def seal(self, name: str, data: bytes) -> bytes:
        """Encrypt ``data``, bound to ``name``."""
        ...

    def open(self, name: str, sealed: bytes) -> bytes:
        """Decrypt a value sealed for ``name``.

        Raises:
            StoreError: it does not open (another name or key, or altered).
        """
        ...

    def reseal(self, name: str, sealed: bytes) -> bytes | None:
        """``sealed`` sealed again with the current key; ``None`` when it already is.

        Raises:
            StoreError: no configured key opens it.
        """
        ...


QueueHandler = Callable[[QueuedEvent], Awaitable[None]]
"""Works one queued event; it must not raise (a failure is answered and logged inside)."""


class TurnQueue(Protocol):
    """A durable queue of acked platform events: any replica works them, each once, in order.

    An adapter ``put``s an event before acknowledging it to the platform, and ``register``s
    the handler that later works it (maybe in another process). Events of one thread are
    worked one at a time, in the order they were put.
    """

    async def put(self, platform: str, event_id: str, thread_id: ThreadId, body: bytes) -> bool:
        """Queue an event; ``False`` when this delivery was queued already (a retry).

        Raises:
            StoreUnavailable: it could not be queued: the platform must not get an ack.
        """
        ...

    def register(self, platform: str, handler: QueueHandler) -> None:
        """Work ``platform``'s events with ``handler`` (one handler per platform)."""
        ...

    def acking(self) -> AbstractContextManager[None]:
        """Hold while acknowledging a delivery.

        This process's entries wait briefly to begin while any ack is under way: a platform
        times acks out, and answers take seconds anyway.
        """
        ...


class AdminCommands(Protocol):
    """What adapters call for admin chat commands (``/veilbot audit export …``)."""

    async def audit_export(
        self, requester: str, args: Sequence[str], *, roles: Sequence[str] = ()
    ) -> AdminReply:
        """Run an export for ``requester`` if they are an admin, else refuse politely.

        Args:
            requester: ``slack:TEAM:USER``, ``discord:USER`` or ``console:USER``.
            args: the words after ``audit export``: ``[since] [thread:ID|channel:ID|user:ID]``.
            roles: the requester's Discord role ids (admins may be listed by role).
        """
        ...

    def is_admin(self, requester: str, roles: Sequence[str] = ()) -> bool:
        """Whether ``requester`` (``slack:TEAM:USER``, ``discord:USER``) is an admin."""
        ...

    async def budget(
        self, requester: str, args: Sequence[str], *, roles: Sequence[str] = ()
    ) -> AdminReply:
        """``budget show | raise KIND ID USD | reset KIND ID`` for an admin; refuse others.

        Raises:
            StoreError: the change could not be recorded or made.
        """
        ...

    async def authorize_erase(
        self,
        requester: str,
        thread_id: str,
        *,
        participant: bool,
        roles: Sequence[str] = (),
        step: str = "confirm",
    ) -> bool:
        """Whether ``requester`` may erase a conversation: a participant, or an admin.

        The one rule for every destructive chat command; ``participant`` is what the platform
        says. Each decision is recorded in the admin action log (ids only).

        Raises:
            StoreError: the decision could not be recorded (nothing may be erased).
        """
        ...


class Metrics(Protocol):
    """Operational counters for the metrics endpoint.

    Implementations label by bounded enums only (platform, status, stage, entity type, model
    name): never a user, thread, channel or any text.
    """

    def turn_finished(self, record: AuditRecord) -> None:
        """Count a finished turn from its audit record (status, stage latencies, entities)."""
        ...

    def duplicate_dropped(self, platform: str) -> None:
        """Count a redelivered event that was dropped."""
        ...

    def lock_waited(self, seconds: float, *, acquired: bool) -> None:
        """Observe a wait for a thread's lock; ``acquired=False`` when it timed out."""
        ...

    def queue_event(self, kind: str, count: int = 1) -> None:
        """Count turn queue events: ``put``, ``claimed``, ``redelivered``."""
        ...

    def queue_depth(self, entries: int) -> None:
        """Set the number of queued entries not done yet (all replicas)."""
        ...


class PlatformAdapter(Protocol):
    """A platform connection: turns events into ``InboundMessage`` and posts ``Reply``."""

    name: str

    async def run(self) -> None:
        """Serve until cancelled."""
        ...

    async def drain(self, timeout: float) -> None:  # noqa: ASYNC109  (the shared contract)
        """Take no new events; wait up to ``timeout`` s for the work in flight; cancel the rest."""
        ...


class Drainable(Protocol):
    """A component with work in flight that a stopping service lets finish (``drain``)."""

    async def drain(self, timeout: float) -> None:  # noqa: ASYNC109  (the shared contract)
        """Take no new work; wait up to ``timeout`` s for the work in flight; cancel the rest."""
        ...


class FileReader(Protocol):
    """Reads a message's files for the turn: fetched before the thread's lock, redacted in it."""

    async def fetch(self, message: InboundMessage) -> list[IncomingFile]:
        """Every attachment's bytes, checked against the count and size limits.

        Reads no thread state, so the turn begins it before it takes the thread's lock.

        Raises:
            InputRejected: too many files, one too large or gone.
            AdapterError: a download failed.
        """
        ...

    async def redact(
        self,
        thread_id: ThreadId,
        files: Sequence[IncomingFile],
        *,
        platform: Platform,
        policy: PolicyOverride | None,
        images: ImagePolicy,
    ) -> FileIntake:
        """Every file's name and content through the guardrail with the thread's vault.

        ``images``: the scope's image policy (``redacted``, ``text-only`` or ``off``).

        Raises:
            InputRejected: a file of a kind not read, unreadable or past a limit.
            GuardrailError: detection could not run; nothing may be sent to the model.
            StoreError: the vault could not be read or written.
        """
        ...
