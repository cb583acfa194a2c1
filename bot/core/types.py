"""Core value types shared by every package.

Everything here is plain data: no I/O, no third-party SDKs. Text held by these types is
placeholder text (``<PERSON_1>``) except where a docstring says otherwise.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal, NewType

from bot.core.attachments import Attachment, FileSource, ImagePart
from bot.core.errors import InputRejected

ThreadId = NewType("ThreadId", str)
"""A conversation: ``slack:{team}:{channel}:{thread_ts}``, ``discord:{guild|dm}:{channel}``,
``console:{name}``."""

_THREAD_ID_RE = re.compile(r"[A-Za-z0-9_.:-]{3,200}")
PLATFORMS = ("slack", "discord", "console")
Platform = Literal["slack", "discord", "console"]
Role = Literal["user", "assistant"]


def thread_id(*parts: str) -> ThreadId:
    """Build and validate a thread id from its parts.

    Args:
        *parts: the platform name followed by its ids, e.g. ``("slack", "T1", "C1", "17.1")``.

    Returns:
        The joined, validated id.

    Raises:
        InputRejected: when a part is empty or holds a character outside ``[A-Za-z0-9_.:-]``.
    """
    if any(not p for p in parts):
        raise InputRejected("thread id has an empty part", reason="invalid")
    return parse_thread_id(":".join(parts))


def parse_thread_id(value: str) -> ThreadId:
    """Validate a thread id string.

    Raises:
        InputRejected: when the id is malformed or names an unknown platform.
    """
    if not _THREAD_ID_RE.fullmatch(value) or value.split(":", 1)[0] not in PLATFORMS:
        raise InputRejected(
            f"invalid thread id (length {len(value)}): only [A-Za-z0-9_.:-] and a known platform",
            reason="invalid",
        )
    return ThreadId(value)


def platform_of(tid: ThreadId) -> Platform:
    """The platform a thread id belongs to."""
    name = tid.split(":", 1)[0]
    assert name in PLATFORMS  # noqa: S101  (guaranteed by parse_thread_id)
    return name  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class ToolUse:
    """One tool call of an answer and its result, both in placeholder form.

    Attributes:
        id: the model's id of the call (``toolu_…``, ``call_…``), which its result names.
        name: the tool as the model knows it (``SERVER__TOOL``).
        arguments: the model's arguments as a JSON object (placeholders, never values).
        result: what the model read back: the redacted result, or an error message.
        error: whether ``result`` is an error.
        round: which of the answer's model calls asked for it (0, 1, ...).
    """

    id: str
    name: str
    arguments: str
    result: str
    error: bool = False
    round: int = 0

    def as_json(self) -> dict[str, Any]:
        """The call as stored in the history."""
        return {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments,
            "result": self.result,
            "error": self.error,
            "round": self.round,
        }

    @classmethod
    def of_json(cls, data: dict[str, Any]) -> ToolUse:
        """Read what ``as_json`` wrote."""
        return cls(
            id=str(data["id"]),
            name=str(data["name"]),
            arguments=str(data["arguments"]),
            result=str(data["result"]),
            error=bool(data.get("error")),
            round=int(data.get("round") or 0),
        )


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of a thread's history, always in placeholder form.

    ``tools``: an answer's tool calls and their results, before its ``text`` (assistant
    messages only; empty for most).
    """

    role: Role
    text: str
    tools: tuple[ToolUse, ...] = ()

    def to_json(self) -> str:
        """Serialise for the history store."""
        data: dict[str, Any] = {"role": self.role, "text": self.text}
        if self.tools:
            data["tools"] = [t.as_json() for t in self.tools]
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: str | bytes) -> ChatMessage:
        """Parse what ``to_json`` wrote."""
        data = json.loads(raw)
        role = data["role"]
        if role not in ("user", "assistant"):
            raise ValueError(f"unknown role {role!r}")
        tools = data.get("tools")
        calls = tuple(ToolUse.of_json(t) for t in tools) if isinstance(tools, list) else ()
        return cls(role=role, text=str(data["text"]), tools=calls)

    @property
    def all_text(self) -> str:
        """The text and every tool call's arguments and result: what refers to placeholders."""
        if not self.tools:
            return self.text
        parts = [self.text]
        for use in self.tools:
            parts += (use.arguments, use.result)
        return "\n".join(parts)


@dataclass(frozen=True, slots=True)
class InboundMessage:
    """A user's message as an adapter hands it to the core. ``text`` is raw user text.

    Attributes:
        thread_id: the conversation this message belongs to.
        platform: ``slack``, ``discord`` or ``console``.
        workspace: Slack team id, Discord guild id (``dm`` for DMs), or ``local``.
        channel: platform channel id.
        user_id: platform user id of the author.
        message_id: platform message id (Slack ``ts``, Discord snowflake).
        text: the raw text, platform markup included. Never logged or stored.
        event_id: platform delivery id used for dedupe; ``None`` disables dedupe.
        private: ``True`` in a direct message, where the reveal policy may show more.
        metadata: free-form, non-personal facts copied into the audit record.
        run_id: the audit run id to use, else a fresh one. A queued delivery sets it from
            its queue entry, so a turn run again (its first worker died) writes the same
            audit row, which the store keeps once.
        attempt: 1, or more when a queued delivery is run again because the worker that
            began it died: the earlier attempt may have stored the exchange already.
        groups: the author's Slack user groups or Discord roles among those the access rules
            name; ``None`` when the adapter could not read them.
        parent_channel: the channel a thread belongs to, where ``channel`` is the thread's
            own id (Discord); empty otherwise.
        files: the files the message carried (not yet fetched).
        file_source: where the adapter fetches them from (its token stays with it).
        withdrawn: a queued message's check that it was dropped while it ran (its workspace
            uninstalled the app), asked before the model is called and before the answer is
            stored: then the turn ends there, audited ``dropped``, and nothing is posted.
        status: where the adapter shows a short status while the answer waits ("is looking
            up lookup_customer…" while tools run); ``None`` where it cannot.
    """

    thread_id: ThreadId
    platform: Platform
    workspace: str
    channel: str
    user_id: str
    message_id: str
    text: str
    event_id: str | None = None
    private: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    run_id: str | None = None
    attempt: int = 1
    groups: frozenset[str] | None = frozenset()
    parent_channel: str = ""
    files: tuple[Attachment, ...] = ()
    file_source: FileSource | None = field(default=None, compare=False, repr=False)
    withdrawn: Callable[[], Awaitable[bool]] | None = field(default=None, compare=False, repr=False)
    status: Callable[[str], Awaitable[None]] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class EntityRef:
    """One personal value found in a text: its type and the placeholder that replaced it."""

    type: str
    placeholder: str


@dataclass(frozen=True, slots=True)
class TextAnalysis:
    """A user's text as the guardrail analysed it, before any thread's vault was read.

    Detection depends on the text alone, so it may run before the thread's lock is held;
    what it found (``found``) belongs to the guardrail and is used only by it. Holds the raw
    text: never stored or logged.
    """

    text: str
    platform: Platform
    found: Any


@dataclass(frozen=True, slots=True)
class Redaction:
    """The guardrail's output for one text. Never carries the original values."""

    text: str
    entities: tuple[EntityRef, ...] = ()
    spans: tuple[tuple[int, int], ...] = ()
    """Where each entity was in the input text (start, end offsets), in the order of
    ``entities``: offsets, not values, so an image's redactor can paint the words there."""
    language: str | None = None
    """The language the text was read as (ISO 639-1), when its scope reads more than English."""

    def counts(self) -> dict[str, int]:
        """Number of entities found, by type."""
        return dict(Counter(e.type for e in self.entities))


@dataclass(frozen=True, slots=True)
class Restoration:
    """A model answer with placeholders turned back into values for one audience.

    Attributes:
        text: what the user sees. Holds real values: never stored or logged.
        unknown_placeholders: placeholders the thread never issued (shown neutrally).
        mangled_placeholders: placeholders the model wrote in another form than it was
            given (``[PERSON_1]``, ``<person_01>``, ``PERSON_1``), restored all the same.
    """

    text: str
    unknown_placeholders: int = 0
    mangled_placeholders: int = 0


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage of one model call."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """What the model is asked: a system prompt and placeholder-only messages."""

    system: str
    messages: tuple[ChatMessage, ...]
    model: str | None = None
    """The model id for this request (a scope's), else the client's configured one."""
    max_tokens: int | None = None
    """The answer length limit for this request (a scope's), else the client's."""
    provider: str | None = None
    """The provider that answers (a scope's), else the service's own."""
    images: tuple[ImagePart, ...] = ()
    """Redacted images that go with the last user message (this turn's files), never history's."""
    tools: tuple[ToolSpec, ...] = ()
    """The tools the model may call (only for a client that ``takes_tools``)."""
    pending: tuple[ToolUse, ...] = ()
    """This answer's tool calls so far, with their results: after the last user message."""
    answer_now: bool = False
    """The model must answer without calling a tool (the turn's rounds or time are up)."""


@dataclass(frozen=True, slots=True)
class ModelResult:
    """A finished model answer in placeholder form, with usage and cost.

    Attributes:
        provider: who served it (``anthropic``, ``bedrock``, ``vertex``, ``openai``, ``echo``).
        cost_note: how ``cost_usd`` was priced (``list price``, ``configured price``, ...).
    """

    text: str
    model: str
    usage: Usage = Usage()
    cost_usd: float | None = None
    stop_reason: str | None = None
    provider: str = ""
    cost_note: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    """The tools the model asked for (``tool_use``, ``tool_calls``); arguments as it wrote them."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model is offered it.

    Attributes:
        name: what the model calls it, ``SERVER__TOOL``.
        description: the server's description of the tool.
        schema: the JSON Schema of its arguments.
    """

    name: str
    description: str
    schema: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call the model asked for: its id, the tool, the arguments (a JSON object)."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What a tool call gave back, before the guardrail read it (may hold raw values).

    Attributes:
        text: the result's text, or what went wrong (no values of ours in it).
        status: ``ok``, ``error`` (the tool said so, or the server failed), ``timeout``,
            ``too_large`` or ``unknown_tool``.
        server: the configured server's name (for the audit).
        tool: the tool's own name on its server.
    """

    text: str
    status: str = "ok"
    server: str = ""
    tool: str = ""

    @property
    def ok(self) -> bool:
        """Whether the call gave a result (not an error)."""
        return self.status == "ok"


class TurnStatus(StrEnum):
    """How a turn ended."""

    OK = "ok"
    GUARDRAIL_ERROR = "guardrail_error"
    MODEL_ERROR = "model_error"
    STORE_ERROR = "store_error"
    REJECTED_INPUT = "rejected_input"
    INTERNAL_ERROR = "internal_error"
    REFUSED = "refused"
    """The access rules do not let this person use the bot there."""
    RATE_LIMITED = "rate_limited"
    """The person or the channel has used up its turns for now."""
    OVER_BUDGET = "over_budget"
    """A monthly cost budget (workspace, channel or person) is spent."""
    DROPPED = "dropped"
    """Queued, then dropped unanswered: its workspace uninstalled the app meanwhile."""
    FORKED = "forked"
    """A new thread started from another's kept turns (a fork): no model call, no text."""


@dataclass(frozen=True, slots=True)
class Reply:
    """What the adapter posts back in the thread.

    Attributes:
        text: the deanonymized answer, or a friendly error message. Never stored or logged.
        status: how the turn ended.
        run_id: the audit run id, for support requests.
        streamed: ``True`` when ``text`` was already sent through a ``ReplySink``.
        redacted: the user's message as the model saw it (placeholder text), for
            ``--show-redactions``; empty when the turn stopped before the guardrail ran.
    """

    text: str
    status: TurnStatus
    run_id: str
    streamed: bool = False
    redacted: str = ""

    @property
    def ok(self) -> bool:
        """Whether the turn produced a model answer."""
        return self.status is TurnStatus.OK

    @property
    def ephemeral(self) -> bool:
        """Whether only the asker should see this reply (a refusal), not the channel."""
        return self.status is TurnStatus.REFUSED


@dataclass(frozen=True, slots=True)
class AdminReply:
    """The answer to an admin chat command; the adapter delivers it privately.

    Attributes:
        text: what to tell the requester (ids and counts only, or a polite refusal).
        allowed: ``False`` when the requester is not an admin or the arguments were bad.
        file: the export file (gzip-compressed JSON lines), when there is one.
        filename: the name to upload ``file`` under.
    """

    text: str
    allowed: bool
    file: bytes | None = None
    filename: str | None = None


def new_run_id() -> str:
    """A fresh, sortable-enough run id."""
    return uuid.uuid4().hex


_QUEUED_RUNS = uuid.UUID("5f0c8a4e-3c52-4d8e-9a57-7d1f2b6c0e91")


def queued_run_id(entry: str) -> str:
    """The run id of a queued delivery: the same for every attempt at one queue entry."""
    return uuid.uuid5(_QUEUED_RUNS, entry).hex


@dataclass(frozen=True, slots=True)
class QueuedEvent:
    """A platform event as the turn queue hands it back to the adapter that queued it.

    Attributes:
        platform: the adapter that queued it (``slack``, ``discord``).
        event_id: the delivery's dedupe id, as given to ``TurnQueue.put``.
        thread_id: the thread it belongs to; a thread's events come in the order queued.
        body: the adapter's own bytes (raw user text inside: sealed while in Redis).
        attempt: 1 the first time; more when an earlier worker took the entry and did not
            finish it (it died, or drained): that one may have answered already.
        still_mine: whether this worker still holds the entry (a worker whose loop stalled
            past the claim idle may have lost it to another, which answers it): asked right
            before the answer is posted.
        withdrawn: whether the entry was dropped while it ran (its workspace uninstalled the
            app): the adapter hands it to the turn as ``InboundMessage.withdrawn``.
    """

    platform: str
    event_id: str
    thread_id: ThreadId
    body: bytes
    attempt: int = 1
    still_mine: Callable[[], Awaitable[bool]] | None = field(default=None, compare=False)
    withdrawn: Callable[[], Awaitable[bool]] | None = field(default=None, compare=False)

    @property
    def run_id(self) -> str:
        """The audit run id every attempt at this entry uses."""
        return queued_run_id(f"{self.platform}:{self.event_id}")


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


@dataclass(slots=True)
class AuditRecord:
    """One turn, as the audit log keeps it. Prompt and answer are placeholder text."""

    run_id: str
    thread_id: str
    platform: str
    workspace: str
    channel: str
    user_id: str
    message_id: str
    started_at: datetime
    finished_at: datetime
    status: TurnStatus
    prompt: str = ""
    answer: str = ""
    entity_counts: dict[str, int] = field(default_factory=dict)
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None
    latencies_ms: dict[str, float] = field(default_factory=dict)
    unknown_placeholders: int = 0
    mangled_placeholders: int = 0
    error: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
