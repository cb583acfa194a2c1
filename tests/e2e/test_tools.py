"""Tools through the guardrail: a real MCP server (stdio, ``tests.fakes.mcp_customers``) called
by the real composition root, the model the fake Messages API speaking ``tool_use``.

What is checked is what people would notice: the model never reads a raw value, from the chat
or from a tool's result; a ``reveal = true`` server is given the real value, a
``reveal = false`` one the placeholder; the person who asked reads the real values; every
failure (the tool's, a timeout, too much, a placeholder the thread lacks, a model that keeps
asking) ends in an answer the person can read; nothing kept holds a raw value.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import generate_latest

from bot.app import build_tools
from bot.core.text import MODEL_EMPTY_REPLY, TOOLS_EXHAUSTED_REPLY
from bot.core.types import Reply, TurnStatus, Usage
from bot.model.pricing import Pricing
from guardrails.presidio import PresidioGuardrail
from tests.e2e.conftest import (
    MakeApp,
    MakeProviderApp,
    audit_dump,
    audit_rows,
    conversation_with,
    message,
    unique_thread,
)
from tests.e2e.discord_harness import StartBot
from tests.e2e.slack_harness import slack_harness
from tests.e2e.test_guarded_turn import leaked
from tests.fakes.anthropic_server import FakeAnthropic, ToolCalls, last_tool_results
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.slack_payloads import dm, mention, new_ts
from tests.fixtures.providers import Provider, provider_settings
from tests.fixtures.services import free_port, redis_dump

ROOT = Path(__file__).resolve().parents[2]
ASKED = "Hi, I'm Maria Gonzalez (+1 415 555 0123). Who manages the account of jane.doe@example.com?"
FROM_CHAT = ["Maria Gonzalez", "+1 415 555 0123", "jane.doe@example.com"]
FROM_TOOL = ["Jane Doe", "+1 415 555 0199", "Robert Chen", "robert.chen@acme-corp.com"]
FROM_TOOL += ["+1 212 555 0147"]
EMAIL = re.compile(r"<EMAIL_ADDRESS_\d+>")


def server(name: str, record: Path, tools: list[str], **options: Any) -> dict[str, Any]:
    """A ``[[tools.servers]]`` entry running the customer lookup over stdio."""
    return {
        "name": name,
        "command": sys.executable,
        "args": ["-m", "tests.fakes.mcp_customers"],
        "env": {"PYTHONPATH": str(ROOT), "VEILBOT_TEST_MCP_RECORD": str(record)},
        "tools": tools,
        "scopes": ["console"],
        **options,
    }


def metadata(row: dict[str, Any]) -> dict[str, Any]:
    """An audit row's metadata (JSON text in SQLite)."""
    meta = row["metadata"]
    return json.loads(meta) if isinstance(meta, str) else dict(meta)


def received(record: Path) -> list[dict[str, Any]]:
    """What the MCP server was called with, in order."""
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]


def results_text(body: dict[str, Any]) -> str:
    """The tool results at the end of a request, as the model reads them (either format)."""
    if answered := FakeOpenAI.last_tool_results(body):
        return " | ".join(str(r["content"]) for r in answered)
    return " | ".join(
        f"{'error: ' if r.get('is_error') else ''}{r['content']}" for r in last_tool_results(body)
    )


def calling(*tools: str, arguments: dict[str, Any] | None = None, say: bool = False) -> Any:
    """A model that asks ``tools`` about the user's e-mail placeholder, then reports the results.

    ``say``: it writes that it looks the address up before asking (text, then ``tool_use``).
    """

    def respond(body: dict[str, Any]) -> Any:
        if results_text(body):
            return f"The lookup said: {results_text(body)}"
        asked = FakeAnthropic.last_user_text(body)
        found = EMAIL.search(asked)
        args = arguments or {"email": found.group() if found else "nobody"}
        text = f"Looking up {args['email']}." if say else ""
        return ToolCalls(tuple((tool, args) for tool in tools), text)

    return respond


class Shown:
    """A reply sink: what the person saw as it was written."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    async def delta(self, text: str) -> None:
        self.parts.append(text)


@pytest.mark.parametrize(
    ("streamed", "database"),
    [(False, "sqlite"), (True, "sqlite"), (False, "postgres")],
    ids=["complete", "stream", "postgres"],
)
async def test_tools_see_placeholders_or_values_by_server_and_the_model_sees_none(
    make_app: MakeApp,
    fake_anthropic: FakeAnthropic,
    redis_url: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    streamed: bool,
    database: str,
) -> None:
    crm, web = tmp_path / "crm.jsonl", tmp_path / "web.jsonl"
    url = request.getfixturevalue("postgres_url") if database == "postgres" else None
    app = await make_app(
        database_url=url,
        tools={
            "servers": [
                server("crm", crm, ["lookup_customer"], reveal=True),
                server("web", web, ["lookup_customer"]),
            ]
        },
    )
    fake_anthropic.responder = calling("crm__lookup_customer", "web__lookup_customer", say=True)
    thread = unique_thread()
    shown = Shown()
    reply = await app.conversation.handle(
        message(ASKED, thread, private=True), shown if streamed else None
    )

    assert reply is not None
    assert reply.status is TurnStatus.OK
    bodies = [r.body for r in fake_anthropic.requests]
    assert len(bodies) == 2  # the question, then the tools' results
    assert [t["name"] for t in bodies[0]["tools"]] == [
        "crm__lookup_customer",
        "web__lookup_customer",
    ]
    # The model never read a raw value: not the chat's, not the tools'.
    raw = "\n".join(r.raw for r in fake_anthropic.requests)
    assert leaked(FROM_CHAT + FROM_TOOL, raw) == []
    # The same e-mail keeps its placeholder in the tool's result; new values got new ones.
    email = EMAIL.findall(FakeAnthropic.last_user_text(bodies[0]))
    assert len(email) == 1
    result = results_text(bodies[1])
    assert email[0] in result
    # The placeholder the reveal = false server quotes back is still the thread's own, so
    # the model can refer to it and the person reads the address (not "<PLACEHOLDER_1>").
    assert f"No customer with the e-mail {email[0]}." in result
    assert "PLACEHOLDER" not in result
    assert "<PERSON_" in result
    assert "<PHONE_NUMBER_" in result
    # The server marked reveal = true got the real address, the other the placeholder.
    assert received(crm) == [
        {"tool": "lookup_customer", "arguments": {"email": "jane.doe@example.com"}}
    ]
    assert received(web) == [{"tool": "lookup_customer", "arguments": {"email": email[0]}}]
    # The person who asked reads the real values.
    seen = "".join(shown.parts) if streamed else reply.text
    assert seen.startswith("Looking up jane.doe@example.com.\n\nThe lookup said: Customer: ")
    assert leaked(FROM_TOOL, seen) == FROM_TOOL
    assert "jane.doe@example.com" in seen
    assert "No customer with the e-mail jane.doe@example.com." in seen
    if streamed:
        assert reply.streamed
        assert seen == reply.text

    # Nothing kept holds a raw value; the audit has each call in placeholder form.
    assert leaked(FROM_CHAT + FROM_TOOL, redis_dump(redis_url, app.settings.redis_prefix)) == []
    assert leaked(FROM_CHAT + FROM_TOOL, await audit_dump(app)) == []
    [row] = await audit_rows(app, thread)
    meta = metadata(row)
    calls = meta["tools"]
    assert [(c["server"], c["status"]) for c in calls] == [("crm", "ok"), ("web", "ok")]
    assert calls[0]["arguments"] == json.dumps({"email": email[0]})
    assert calls[0]["entities"]["PERSON"] >= 2
    assert calls[0]["ms"] > 0
    assert meta["tool_rounds"] == 1
    assert leaked(FROM_CHAT + FROM_TOOL, generate_latest(app.metrics.registry).decode()) == []


async def test_the_history_keeps_the_calls_and_the_next_turn_sends_them_back(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    app = await make_app(
        tools={"servers": [server("crm", tmp_path / "crm.jsonl", ["lookup_customer"], reveal=True)]}
    )
    fake_anthropic.responder = calling("crm__lookup_customer")
    thread = unique_thread()
    await app.conversation.handle(message(ASKED, thread, private=True))
    fake_anthropic.responder = lambda body: "Anything else?"
    reply = await app.conversation.handle(message("Thanks, and her phone?", thread, private=True))

    assert reply is not None
    assert reply.ok
    later = fake_anthropic.requests[-1]
    kinds = [
        [b["type"] for b in m["content"]] if isinstance(m["content"], list) else ["text"]
        for m in later.body["messages"]
    ]
    assert kinds[:4] == [["text"], ["tool_use"], ["tool_result"], ["text"]]
    assert leaked(FROM_CHAT + FROM_TOOL, later.raw) == []
    # The vault keeps the values the kept tool results name: an answer can still show them.
    manager = re.compile(r"Account manager: (<PERSON_\d+>, <EMAIL_ADDRESS_\d+>)")

    def recall(body: dict[str, Any]) -> str:
        found = manager.search(body["messages"][2]["content"][0]["content"])
        return f"Her manager is {found.group(1) if found else 'unknown'}."

    fake_anthropic.responder = recall
    again = await app.conversation.handle(message("Remind me of her manager?", thread))
    assert again is not None
    assert again.text == "Her manager is Robert Chen, robert.chen@acme-corp.com."


async def failing_turn(
    make_app: MakeApp,
    fake_anthropic: FakeAnthropic,
    record: Path,
    tool: str,
    *,
    arguments: dict[str, Any] | None = None,
    **options: Any,
) -> Reply:
    """One turn in which the model asks ``crm__{tool}`` and then reports what it read."""
    app = await make_app(tools={"servers": [server("crm", record, [tool], reveal=True, **options)]})
    fake_anthropic.responder = calling(f"crm__{tool}", arguments=arguments)
    reply = await app.conversation.handle(message(ASKED, unique_thread(), private=True))
    assert reply is not None
    return reply


async def test_a_failing_tool_is_an_error_the_model_reads_and_the_turn_goes_on(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    reply = await failing_turn(make_app, fake_anthropic, tmp_path / "r", "broken_lookup")

    assert reply.status is TurnStatus.OK
    assert reply.text == "The lookup said: error: Error executing tool broken_lookup"


async def test_a_slow_tool_times_out_into_an_error_result(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    reply = await failing_turn(
        make_app, fake_anthropic, tmp_path / "r", "slow_lookup", timeout_seconds=1
    )

    assert reply.status is TurnStatus.OK
    assert reply.text == "The lookup said: error: the tool did not answer within 1 s"


async def test_an_oversized_result_is_refused_not_read(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    reply = await failing_turn(
        make_app, fake_anthropic, tmp_path / "r", "export_all", arguments={}, max_result_chars=5000
    )

    assert reply.status is TurnStatus.OK
    assert reply.text.startswith("The lookup said: error: the tool's result was ")
    assert reply.text.endswith("characters, more than the 5000 it may give; ask for less")
    assert leaked(FROM_TOOL, "\n".join(r.raw for r in fake_anthropic.requests)) == []


async def test_a_placeholder_the_thread_lacks_is_never_guessed(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    record = tmp_path / "r"
    # another thread's e-mail placeholder number, never issued in this one
    reply = await failing_turn(
        make_app,
        fake_anthropic,
        record,
        "lookup_customer",
        arguments={"email": "<EMAIL_ADDRESS_7>"},
    )

    told = (
        "unknown placeholder {}: this conversation has no such value, so the tool was not "
        "called; ask the user for it"
    )
    assert results_text(fake_anthropic.requests[-1].body) == "error: " + told.format(
        "<EMAIL_ADDRESS_7>"
    )
    assert received(record) == []  # the server was never called
    # the person reads the model's words; a placeholder of no value of theirs shows as such
    assert reply.status is TurnStatus.OK
    assert reply.text == "The lookup said: error: " + told.format("[redacted]")


async def test_a_model_that_keeps_asking_for_tools_is_stopped_after_its_rounds(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    record = tmp_path / "r"
    app = await make_app(
        tools={
            "max_rounds": 2,
            "servers": [server("crm", record, ["lookup_customer"], reveal=True)],
        }
    )
    fake_anthropic.responder = lambda body: ToolCalls(
        (("crm__lookup_customer", {"email": "<EMAIL_ADDRESS_1>"}),)
    )
    fake_anthropic.usage = {"input_tokens": 100, "output_tokens": 10}
    thread = unique_thread()
    reply = await app.conversation.handle(message(ASKED, thread))

    assert reply is not None
    assert reply.status is TurnStatus.MODEL_ERROR
    assert reply.text == TOOLS_EXHAUSTED_REPLY
    bodies = [r.body for r in fake_anthropic.requests]
    assert len(bodies) == 3
    assert len(received(record)) == 2
    assert bodies[-1]["tool_choice"] == {"type": "none"}  # the last call had to answer
    [row] = await audit_rows(app, thread)
    assert metadata(row)["tool_rounds_exhausted"] is True
    # every round was a model call, and the turn's tokens (and cost) count them all
    assert (row["input_tokens"], row["output_tokens"]) == (300, 30)


async def test_the_echo_model_and_places_outside_the_scopes_get_no_tools(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    record = tmp_path / "r"
    elsewhere = server("crm", record, ["lookup_customer"], reveal=True)
    elsewhere["scopes"] = ["slack:T0123"]
    app = await make_app(tools={"servers": [elsewhere]})
    reply = await app.conversation.handle(message(ASKED, unique_thread()))
    assert reply is not None
    assert reply.ok
    assert "tools" not in fake_anthropic.requests[-1].body

    echo = await make_app(
        model_provider="echo",
        tools={"servers": [server("crm", record, ["lookup_customer"], reveal=True)]},
    )
    answered = await echo.conversation.handle(message(ASKED, unique_thread()))
    assert answered is not None
    assert answered.ok
    assert received(record) == []


@pytest.fixture
def http_customers(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The customer lookup over streamable HTTP: its URL and its record of calls."""
    record = tmp_path / "http.jsonl"
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VEILBOT_TEST_MCP_RECORD": str(record)}
    proc = subprocess.Popen(  # noqa: S603  (this interpreter, a module of the tests)
        [sys.executable, "-m", "tests.fakes.mcp_customers", "--http", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    drain = threading.Thread(target=proc.stderr.read, daemon=True)
    try:
        for line in proc.stderr:  # uvicorn says when it listens
            if "Uvicorn running on" in line:
                break
        else:
            pytest.fail("the MCP HTTP server did not start")
        drain.start()  # keep the pipe drained
        yield f"http://127.0.0.1:{port}/mcp", record
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if drain.is_alive():
            drain.join(timeout=10)
        proc.stderr.close()


async def test_a_streamable_http_server_works_as_a_stdio_one(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, http_customers: tuple[str, Path]
) -> None:
    url, record = http_customers
    entry = {"name": "crm", "url": url, "tools": ["lookup_customer"], "scopes": ["console"]}
    app = await make_app(tools={"servers": [{**entry, "reveal": True}]})
    fake_anthropic.responder = calling("crm__lookup_customer")
    reply = await app.conversation.handle(message(ASKED, unique_thread(), private=True))

    assert reply is not None
    assert reply.status is TurnStatus.OK
    assert received(record) == [
        {"tool": "lookup_customer", "arguments": {"email": "jane.doe@example.com"}}
    ]
    assert leaked(FROM_CHAT + FROM_TOOL, "\n".join(r.raw for r in fake_anthropic.requests)) == []
    assert leaked(FROM_TOOL, reply.text) == FROM_TOOL


async def test_tool_calls_still_running_at_the_deadline_are_stopped(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    app = await make_app(
        tools={
            "deadline_seconds": 1.5,
            "servers": [
                server("crm", tmp_path / "r", ["slow_lookup"], reveal=True, timeout_seconds=60)
            ],
        }
    )
    fake_anthropic.responder = calling("crm__slow_lookup")
    reply = await app.conversation.handle(message(ASKED, unique_thread(), private=True))

    assert reply is not None
    assert reply.status is TurnStatus.OK
    assert reply.text == (
        "The lookup said: error: the turn's time for tools ran out before this call finished"
    )
    assert fake_anthropic.requests[-1].body["tool_choice"] == {"type": "none"}


async def test_tool_turns_log_no_personal_data_even_at_debug(
    make_app: MakeApp,
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
    http_customers: tuple[str, Path],
    debug_logs: pytest.LogCaptureFixture,
) -> None:
    tools = ["lookup_customer", "broken_lookup", "export_all"]
    over_http = {"name": "web", "url": http_customers[0], "tools": ["lookup_customer"]}
    app = await make_app(
        tools={
            "servers": [
                server("crm", tmp_path / "r", tools, reveal=True, max_result_chars=500),
                {**over_http, "scopes": ["console"], "reveal": True},
            ]
        }
    )
    for tool in [f"crm__{t}" for t in tools] + ["web__lookup_customer"]:
        fake_anthropic.responder = calling(tool)
        await app.conversation.handle(message(ASKED, unique_thread(), private=True))

    assert len(received(http_customers[1])) == 1  # the HTTP server was called (with values)
    assert "tool call" in debug_logs.text  # the failures were logged...
    assert leaked(FROM_CHAT + FROM_TOOL, debug_logs.text) == []  # ...without values


class _CrashesOnToolResults:
    """A Presidio analyzer that works on chat and crashes on the customer record."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def analyze(self, text: str, *args: Any, **kwargs: Any) -> Any:
        if "Account manager" in text:
            raise RuntimeError("spaCy pipeline crashed")
        return self._real.analyze(text, *args, **kwargs)


async def test_a_result_the_guardrail_cannot_read_never_reaches_the_model(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, presidio_analyzer: Any, tmp_path: Path
) -> None:
    app = await make_app(
        tools={"servers": [server("crm", tmp_path / "r", ["lookup_customer"], reveal=True)]}
    )
    guardrail = PresidioGuardrail(_CrashesOnToolResults(presidio_analyzer), app.vault)
    tools = build_tools(app.settings)
    assert tools is not None
    conversation = conversation_with(app, guardrail, tools)
    fake_anthropic.responder = calling("crm__lookup_customer")
    thread = unique_thread()
    try:
        reply = await conversation.handle(message(ASKED, thread, private=True))
    finally:
        await tools.aclose()

    assert reply is not None
    assert reply.status is TurnStatus.OK
    assert reply.text == (
        "The lookup said: error: the tool's result could not be checked for personal data"
    )
    assert leaked(FROM_CHAT + FROM_TOOL, "\n".join(r.raw for r in fake_anthropic.requests)) == []
    [row] = await audit_rows(app, thread)
    assert metadata(row)["tools"][0]["status"] == "guardrail_error"


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_every_provider_calls_tools(
    make_provider_app: MakeProviderApp, provider: Provider, tmp_path: Path, streamed: bool
) -> None:
    record = tmp_path / "r"
    crm = server("crm", record, ["lookup_customer"], reveal=True)
    app = await make_provider_app(provider.settings, tools={"servers": [crm]})
    provider.fake.responder = calling("crm__lookup_customer")
    shown = Shown()
    reply = await app.conversation.handle(
        message(ASKED, unique_thread(), private=True), shown if streamed else None
    )

    assert reply is not None
    assert reply.status is TurnStatus.OK
    assert leaked(FROM_CHAT + FROM_TOOL, provider.fake.everything_received()) == []
    assert received(record) == [
        {"tool": "lookup_customer", "arguments": {"email": "jane.doe@example.com"}}
    ]
    assert leaked(FROM_TOOL, reply.text) == FROM_TOOL
    if streamed:
        assert "".join(shown.parts) == reply.text


async def test_budgets_are_charged_every_model_round(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    crm = server("crm", tmp_path / "r", ["lookup_customer"], reveal=True)
    fake_anthropic.usage = {"input_tokens": 1000, "output_tokens": 100}
    fake_anthropic.responder = calling("crm__lookup_customer", arguments={"email": "x@example.org"})
    app = await make_app(budgets={"workspace_usd": 1000}, tools={"servers": [crm]})
    thread = unique_thread()
    answered = await app.conversation.handle(message("Who manages the account?", thread))

    assert answered is not None
    assert answered.ok
    # two model calls (the question, then the tool's result): both counted and charged
    [row] = await audit_rows(app, thread)
    assert (row["input_tokens"], row["output_tokens"]) == (2000, 200)
    tokens = Usage(2000, 200, row["cache_read_tokens"], row["cache_write_tokens"])
    summed, _ = Pricing("anthropic").cost(row["model"], tokens)
    assert row["cost_usd"] == pytest.approx(summed)
    ref = app.ledger.budgets.ref("workspace", "console:local")
    (state,) = await app.ledger.states([ref])
    assert state.spent_usd == pytest.approx(row["cost_usd"], abs=1e-5)


async def test_slack_shows_which_tools_run_in_an_assistant_thread(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    crm = server("crm", tmp_path / "r", ["lookup_customer"], reveal=True)
    crm["scopes"] = ["slack:T1"]
    fake_anthropic.responder = calling("crm__lookup_customer")
    async with slack_harness(make_app, tools={"servers": [crm]}) as h:
        asked = dm(ASKED, thread_ts=new_ts())
        await h.send(asked)
        thread_ts = asked["event"]["thread_ts"]
        await h.until(lambda: len(h.slack.thread("D1", thread_ts)) >= 1, "the answer")
        await h.settle()
        statuses = [c["status"] for c in h.slack.calls_to("assistant.threads.setStatus")]
        answer = h.slack.thread("D1", thread_ts)[-1]

    assert statuses[:2] == ["is thinking…", "is looking up lookup_customer…"]
    assert received(tmp_path / "r") == [
        {"tool": "lookup_customer", "arguments": {"email": "jane.doe@example.com"}}
    ]
    assert "Robert Chen" in answer
    assert leaked(FROM_CHAT + FROM_TOOL, "\n".join(r.raw for r in fake_anthropic.requests)) == []


async def test_slack_shows_which_tools_run_in_a_channel_thread_until_the_answer_replaces_it(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    crm = server("crm", tmp_path / "r", ["lookup_customer"], reveal=True)
    crm["scopes"] = ["slack:T1"]
    fake_anthropic.responder = calling("crm__lookup_customer")
    async with slack_harness(make_app, tools={"servers": [crm]}) as h:
        asked = mention(ASKED, ts=new_ts())
        await h.send(asked)
        thread_ts = asked["event"]["ts"]
        await h.until(
            lambda: any("Robert Chen" in c["text"] for c in h.slack.calls_to("chat.update")),
            "the answer in place of the status",
        )
        await h.settle()
        posts = [c["text"] for c in h.slack.calls_to("chat.postMessage")]
        shown = h.slack.thread("C1", thread_ts)

    assert posts[0] == "_is looking up lookup_customer…_"
    assert len(posts) == 1, "the answer replaced the status instead of following it"
    assert "Robert Chen" in shown[-1]
    assert not any("looking up" in text for text in shown)


async def test_slack_shows_which_tools_run_as_a_streamed_channel_threads_status(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    crm = server("crm", tmp_path / "r", ["lookup_customer"], reveal=True)
    crm["scopes"] = ["slack:T1"]
    fake_anthropic.responder = calling("crm__lookup_customer")
    async with slack_harness(make_app, slack_streaming="stream", tools={"servers": [crm]}) as h:
        asked = mention(ASKED, ts=new_ts())
        await h.send(asked)
        thread_ts = asked["event"]["ts"]
        await h.until(lambda: h.slack.calls_to("chat.stopStream"), "the streamed answer")
        await h.settle()
        statuses = h.slack.calls_to("assistant.threads.setStatus")
        shown = h.slack.thread("C1", thread_ts)

    assert [(c["channel_id"], c["thread_ts"], c["status"]) for c in statuses] == [
        ("C1", thread_ts, "is looking up lookup_customer…")
    ]
    assert "Robert Chen" in shown[-1]
    assert not any("looking up" in text for text in shown), "the status is no message"


async def test_an_empty_answer_after_tools_is_an_empty_answer(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    app = await make_app(
        tools={"servers": [server("crm", tmp_path / "r", ["lookup_customer"], reveal=True)]}
    )
    looks_up = calling("crm__lookup_customer")
    fake_anthropic.responder = lambda body: "" if last_tool_results(body) else looks_up(body)
    reply = await app.conversation.handle(message(ASKED, unique_thread(), private=True))

    assert reply is not None
    assert reply.status is TurnStatus.MODEL_ERROR
    assert reply.text == MODEL_EMPTY_REPLY  # not "ran out of lookups": one round was used


@pytest.mark.parametrize("progressive", [True, False])
async def test_discord_shows_which_tools_run_until_the_answer_replaces_it(
    start_bot: StartBot,
    fake_discord: FakeDiscord,
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
    progressive: bool,
) -> None:
    crm = server("crm", tmp_path / "r", ["lookup_customer"], reveal=True)
    crm["scopes"] = ["*"]
    fake_anthropic.responder = calling("crm__lookup_customer")
    bot = await start_bot(discord_progressive_edits=progressive, tools={"servers": [crm]})
    dm = 650000000000000077
    await fake_discord.dispatch(
        "MESSAGE_CREATE", fake_discord.message(ASKED, channel=dm, guild=None)
    )
    await bot.until(lambda: any("Robert Chen" in r.body["content"] for r in fake_discord.edits()))

    [first] = fake_discord.posts(dm)
    assert first.body["content"] == "_is looking up lookup_customer…_"
    assert received(tmp_path / "r") == [
        {"tool": "lookup_customer", "arguments": {"email": "jane.doe@example.com"}}
    ]


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_an_openai_compatible_server_calls_tools_and_the_model_sees_no_value(
    make_provider_app: MakeProviderApp,
    fake_openai: FakeOpenAI,
    redis_url: str,
    tmp_path: Path,
    streamed: bool,
) -> None:
    crm, web = tmp_path / "crm.jsonl", tmp_path / "web.jsonl"
    servers = [server("crm", crm, ["lookup_customer"], reveal=True)]
    servers += [server("web", web, ["lookup_customer"])]
    app = await make_provider_app(
        provider_settings("openai", fake_openai), tools={"servers": servers}
    )
    fake_openai.responder = calling("crm__lookup_customer", "web__lookup_customer", say=True)
    thread = unique_thread()
    shown = Shown()
    reply = await app.conversation.handle(
        message(ASKED, thread, private=True), shown if streamed else None
    )

    assert reply is not None
    assert reply.status is TurnStatus.OK
    bodies = [r.body for r in fake_openai.requests]
    assert len(bodies) == 2  # the question, then the tools' results
    offered = bodies[0]["tools"]
    assert [t["function"]["name"] for t in offered] == [
        "crm__lookup_customer",
        "web__lookup_customer",
    ]
    assert all(t["type"] == "function" and t["function"]["parameters"] for t in offered)
    # The model never read a raw value: not the chat's, not the tools'.
    raw = "\n".join(r.raw for r in fake_openai.requests)
    assert leaked(FROM_CHAT + FROM_TOOL, raw) == []
    email = EMAIL.findall(FakeOpenAI.last_user_text(bodies[0]))
    assert len(email) == 1
    # The calls went back as the model wrote them, each result naming its call.
    asked = bodies[1]["messages"][-3]
    assert [json.loads(c["function"]["arguments"]) for c in asked["tool_calls"]] == [
        {"email": email[0]},
        {"email": email[0]},
    ]
    results = FakeOpenAI.last_tool_results(bodies[1])
    assert [r["tool_call_id"] for r in results] == [c["id"] for c in asked["tool_calls"]]
    assert email[0] in results[0]["content"]
    assert "<PERSON_" in results[0]["content"]
    # The server marked reveal = true got the real address, the other the placeholder.
    assert received(crm) == [
        {"tool": "lookup_customer", "arguments": {"email": "jane.doe@example.com"}}
    ]
    assert received(web) == [{"tool": "lookup_customer", "arguments": {"email": email[0]}}]
    # The person who asked reads the real values.
    seen = "".join(shown.parts) if streamed else reply.text
    assert seen.startswith("Looking up jane.doe@example.com.\n\nThe lookup said: Customer: ")
    assert leaked(FROM_TOOL, seen) == FROM_TOOL
    if streamed:
        assert seen == reply.text
    assert leaked(FROM_CHAT + FROM_TOOL, redis_dump(redis_url, app.settings.redis_prefix)) == []
    assert leaked(FROM_CHAT + FROM_TOOL, await audit_dump(app)) == []

    # The next turn sends the calls back from the history, before the answer they led to.
    fake_openai.responder = lambda body: "Noted."
    await app.conversation.handle(message("Thanks!", thread, private=True))
    history = fake_openai.requests[-1].body["messages"]
    roles = [m["role"] for m in history]
    assert roles == ["system", "user", "assistant", "tool", "tool", "assistant", "user"]
    assert history[2]["tool_calls"] == asked["tool_calls"]
    assert leaked(FROM_CHAT + FROM_TOOL, fake_openai.requests[-1].raw) == []


async def test_an_openai_compatible_model_that_keeps_asking_must_answer_after_its_rounds(
    make_provider_app: MakeProviderApp, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    record = tmp_path / "r"
    crm = server("crm", record, ["lookup_customer"], reveal=True)
    app = await make_provider_app(
        provider_settings("openai", fake_openai), tools={"max_rounds": 2, "servers": [crm]}
    )
    fake_openai.responder = lambda body: ToolCalls(
        (("crm__lookup_customer", {"email": "<EMAIL_ADDRESS_1>"}),)
    )
    reply = await app.conversation.handle(message(ASKED, unique_thread()))

    assert reply is not None
    assert reply.status is TurnStatus.MODEL_ERROR
    assert reply.text == TOOLS_EXHAUSTED_REPLY
    bodies = [r.body for r in fake_openai.requests]
    assert len(bodies) == 3
    assert len(received(record)) == 2
    assert [b.get("tool_choice") for b in bodies] == [None, None, "none"]


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
async def test_a_model_the_server_refuses_tools_for_answers_without_them(
    make_provider_app: MakeProviderApp,
    fake_openai: FakeOpenAI,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    streamed: bool,
) -> None:
    record = tmp_path / "r"
    crm = server("crm", record, ["lookup_customer"], reveal=True)
    app = await make_provider_app(
        provider_settings("openai", fake_openai), tools={"servers": [crm]}
    )
    fake_openai.refuse_tools = True
    fake_openai.responder = calling("crm__lookup_customer", say=True)  # without tools: its text
    shown = Shown()
    reply = await app.conversation.handle(
        message(ASKED, unique_thread(), private=True), shown if streamed else None
    )

    assert reply is not None
    assert reply.status is TurnStatus.OK
    assert reply.text == "Looking up jane.doe@example.com."  # answered, without tools
    if streamed:
        assert "".join(shown.parts) == reply.text
    assert ["tools" in r.body for r in fake_openai.requests] == [True, False]
    assert received(record) == []
    assert "refused tools for model llama3.1:8b" in caplog.text
    assert leaked(FROM_CHAT, caplog.text) == []

    # From then on the model is offered none: one request per turn.
    again = await app.conversation.handle(message("And now?", unique_thread()))
    assert again is not None
    assert again.ok
    assert len(fake_openai.requests) == 3
    assert "tools" not in fake_openai.requests[-1].body
