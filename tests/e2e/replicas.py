"""Several ``veilbot run slack`` processes behind one Slack: the replica harness.

Every replica is a real process (``tests.fixtures.processes.spawned``: killed when the block
ends) on one Redis and one audit database, pointing at one fake Slack and one fake Anthropic.
Each replica has its own model key (``test-key-r<i>``) and bot token (``xoxb-r<i>``), so the
fakes' records say which replica asked the model and which one posted an answer.

A burst is ``threads`` threads of ``per_thread`` signed ``app_mention`` events; every event
text starts with a marker ``msg-<t>-<k>`` (thread ``t``, ``k``-th event of the thread), which
the echoing fake model copies into the answer, so an answer names the event it answers. Each
event is delivered to every replica, as the original and Slack's retries (``X-Slack-Retry-Num``);
the next event of a thread is sent once the previous one's deliveries have returned, as Slack
sends a thread's messages in order. An event that no replica acked (503: Redis was out of reach,
or the replica was dead) is delivered again a second later, as Slack retries it.

Used by ``tests/e2e/test_replicas.py`` and ``tests/perf/bench_slack.py --replicas N``.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import aiohttp
import redis.asyncio as aioredis

from tests.fakes.anthropic_server import FakeAnthropic, block_text
from tests.fakes.base import RecordedRequest
from tests.fakes.slack_payloads import SIGNING_SECRET, mention, signed_headers
from tests.fakes.slack_server import TEAM_ID, FakeSlack
from tests.fixtures.guardrail import TEST_MODEL, TEST_VAULT_KEY_B64
from tests.fixtures.processes import Spawned, base_env, spawned
from tests.fixtures.services import free_port

MARK = re.compile(r"msg-(\d+)-(\d+)\b")
Key = tuple[int, int]
"""An event's ``(thread, k)``."""

SLACK_RETRIES = 10
"""Further rounds of deliveries for an event no replica acked (each to every target)."""
RETRY_AFTER_SECONDS = 1.0
"""The pause before such a round: the ``Retry-After`` the service answers with a 503."""
START_SECONDS = 240.0
"""Three replicas loading spaCy and Presidio at once on a busy 2-core machine."""


@dataclass
class Replica:
    """One running ``veilbot run slack`` process."""

    index: int
    port: int
    child: Spawned

    @property
    def name(self) -> str:
        return f"r{self.index}"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def events_url(self) -> str:
        return f"{self.base}/slack/events"

    @property
    def api_key(self) -> str:
        return api_key(self.index)

    @property
    def bot_token(self) -> str:
        return bot_token(self.index)


class Target(Protocol):
    """Where deliveries go: a replica, or a service in the benchmark's own process."""

    @property
    def index(self) -> int: ...

    @property
    def events_url(self) -> str: ...


@dataclass(frozen=True)
class Endpoint:
    """A service's events endpoint (``Target``) that is not a spawned replica."""

    index: int
    events_url: str


def api_key(index: int) -> str:
    """The model key replica ``index`` uses."""
    return f"test-key-r{index}"


def bot_token(index: int) -> str:
    """The Slack bot token replica ``index`` posts with."""
    return f"xoxb-r{index}"


def replica_env(
    index: int,
    port: int,
    *,
    data_dir: Path,
    redis_url: str,
    prefix: str,
    database_url: str | None,
    slack: FakeSlack,
    model: FakeAnthropic,
    **extra: str,
) -> dict[str, str]:
    """The environment of replica ``index``: shared stores, its own port, key and token.

    Without a ``database_url`` each replica keeps its audit log in its own SQLite file.
    """
    if database_url is not None:
        extra = {"VEILBOT_DATABASE_URL": database_url, **extra}
    return base_env(
        VEILBOT_DATA_DIR=str(data_dir / f"r{index}"),
        VEILBOT_REDIS_URL=redis_url,
        VEILBOT_REDIS_PREFIX=prefix,
        VEILBOT_VAULT_KEY=TEST_VAULT_KEY_B64,
        VEILBOT_SPACY_MODEL=TEST_MODEL,
        VEILBOT_ANTHROPIC_API_KEY=api_key(index),
        VEILBOT_ANTHROPIC_BASE_URL=model.url,
        VEILBOT_MODEL_MAX_RETRIES="0",
        VEILBOT_SLACK_BOT_TOKEN=bot_token(index),
        VEILBOT_SLACK_SIGNING_SECRET=SIGNING_SECRET,
        VEILBOT_SLACK_API_URL=slack.api_url,
        VEILBOT_SLACK_HTTP_PORT=str(port),
        VEILBOT_SLACK_STREAMING="off",
        VEILBOT_REPLICA_ID=f"r{index}",
        **extra,
    )


@asynccontextmanager
async def running_replicas(count: int, **env: Any) -> AsyncIterator[list[Replica]]:
    """Start ``count`` replicas at once (``replica_env`` arguments); all killed on exit.

    Yields once every replica answers ``/readyz`` 200.
    """
    async with AsyncExitStack() as stack:
        replicas: list[Replica] = []
        stack.callback(_keep_logs, replicas, env["data_dir"])
        for index in range(count):
            port = free_port()
            child = await stack.enter_async_context(
                spawned(replica_env(index, port, **env), "run", "slack")
            )
            replicas.append(Replica(index, port, child))
        await asyncio.gather(
            *(r.child.serving(f"{r.base}/readyz", within=START_SECONDS) for r in replicas)
        )
        yield replicas


def _keep_logs(replicas: Sequence[Replica], data_dir: Path) -> None:
    """Write each replica's stderr to ``<data_dir>/r<i>.log`` (read after a failure)."""
    for replica in replicas:
        (data_dir / f"{replica.name}.log").write_text(replica.child.stderr)


# ------------------------------------------------------------------------------ the burst


@dataclass(frozen=True)
class Event:
    """One planned Slack event: its place in its thread and the body every delivery sends."""

    t: int
    k: int
    channel: str
    ts: str
    thread_ts: str
    body: str

    @property
    def key(self) -> Key:
        return (self.t, self.k)

    @property
    def thread_id(self) -> str:
        return f"slack:{TEAM_ID}:{self.channel}:{self.thread_ts}"


def plan(threads: int, per_thread: int, *, extra: Any = None) -> list[list[Event]]:
    """``threads`` lists of ``per_thread`` events; ``extra(t, k)`` adds text after the marker."""
    burst = []
    for t in range(threads):
        root = f"17{t:08d}.000000"
        channel = f"C{t % 7}"
        events = []
        for k in range(per_thread):
            ts = f"17{t:08d}.{k:06d}"
            text = f"msg-{t}-{k} please answer" + (f" {extra(t, k)}" if extra else "")
            payload = mention(text, ts=ts, thread_ts=None if k == 0 else root, channel=channel)
            events.append(Event(t, k, channel, ts, root, json.dumps(payload)))
        burst.append(events)
    return burst


@dataclass
class Sent:
    """What the deliveries of a burst got back: per event, ``(replica, status)``; a
    connection that failed (a dead replica) has status 0."""

    statuses: dict[Key, list[tuple[int, int]]] = field(default_factory=dict)
    ack_seconds: list[float] = field(default_factory=list)
    first_ack_seconds: dict[Key, float] = field(default_factory=dict)
    """Per event, how long its first 200 took."""
    retry_after: list[str | None] = field(default_factory=list)
    """The ``Retry-After`` header of every 503."""

    def acked_by(self, index: int) -> set[Key]:
        return {k for k, got in self.statuses.items() if (index, 200) in got}

    def never_acked(self) -> list[Key]:
        """Events no delivery got a 200 for (Slack would still be retrying them)."""
        return sorted(k for k, got in self.statuses.items() if all(s != 200 for _, s in got))


async def _deliver(
    session: aiohttp.ClientSession, replica: Target, event: Event, retry: int | None, sent: Sent
) -> tuple[int, int]:
    start = time.perf_counter()
    try:
        headers = signed_headers(event.body, retry_num=retry)
        data = event.body.encode()
        async with session.post(replica.events_url, data=data, headers=headers) as r:
            await r.read()
            status = r.status
            if status == 503:
                sent.retry_after.append(r.headers.get("Retry-After"))
    except aiohttp.ClientError:
        return replica.index, 0
    if status == 200:
        took = time.perf_counter() - start
        sent.ack_seconds.append(took)
        sent.first_ack_seconds.setdefault(event.key, took)
    return replica.index, status


async def send_thread(
    session: aiohttp.ClientSession,
    replicas: Sequence[Target],
    events: Sequence[Event],
    sent: Sent,
    *,
    copies: int = 3,
) -> None:
    """Send a thread's events in order; each to ``copies`` replicas at once (the original
    and Slack's retries), the first of them rotating over the replicas."""
    for event in events:
        first = (event.t + event.k) % len(replicas)
        targets = [replicas[(first + i) % len(replicas)] for i in range(copies)]
        got = await asyncio.gather(
            *(
                _deliver(session, r, event, None if i == 0 else i, sent)
                for i, r in enumerate(targets)
            )
        )
        retry = copies
        while all(status != 200 for _, status in got) and retry < copies + SLACK_RETRIES:
            # refused everywhere (503 while Redis is out of reach, a dead replica): Slack
            # delivers the event again later, as the 503's Retry-After asks
            await asyncio.sleep(RETRY_AFTER_SECONDS)
            got += await asyncio.gather(
                *(_deliver(session, r, event, retry, sent) for r in targets)
            )
            retry += 1
        sent.statuses[event.key] = list(got)


async def send_burst(
    replicas: Sequence[Target], burst: Sequence[Sequence[Event]], *, copies: int = 3
) -> Sent:
    """Send every thread of ``burst`` concurrently; returns what the deliveries got."""
    sent = Sent()
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await asyncio.gather(
            *(send_thread(session, replicas, events, sent, copies=copies) for events in burst)
        )
    return sent


# ------------------------------------------------------------------------- what was seen


def marker(text: str) -> Key | None:
    """The ``(t, k)`` a text names, if any."""
    found = MARK.search(text)
    return (int(found.group(1)), int(found.group(2))) if found else None


def replica_of(credential: str) -> int:
    """The replica index in a model key or bot token."""
    return int(credential.rsplit("-r", 1)[1])


def answers(slack: FakeSlack) -> dict[Key, list[int]]:
    """Per event, the replicas that posted an answer to it (one entry per answer)."""
    found: dict[Key, list[int]] = defaultdict(list)
    for call in slack.calls:
        if call.method == "chat.postMessage" and (key := marker(str(call.params.get("text")))):
            found[key].append(replica_of(call.token))
    return found


class AnswerWatch:
    """The events answered so far, read from the calls the fake received since the last look.

    For waiting on a burst: ``answers`` reads every call each time, which a loop polling
    through thousands of answers pays for over and over on the machine it measures.
    """

    def __init__(self, slack: FakeSlack) -> None:
        self._slack = slack
        self._read = 0
        self.answered: set[Key] = set()

    def count(self) -> int:
        """How many events have at least one answer now."""
        calls = self._slack.calls
        for i in range(self._read, len(calls)):
            call = calls[i]
            if call.method == "chat.postMessage" and (key := marker(str(call.params.get("text")))):
                self.answered.add(key)
        self._read = len(calls)
        return len(self.answered)


def other_posts(slack: FakeSlack) -> list[str]:
    """Posted texts that answer no event (apologies, errors)."""
    return [
        str(c.params.get("text"))
        for c in slack.calls
        if c.method == "chat.postMessage" and marker(str(c.params.get("text"))) is None
    ]


def thread_orders(slack: FakeSlack, burst: Sequence[Sequence[Event]]) -> dict[int, list[int]]:
    """Per thread, the ``k`` of each answer in the order people see them."""
    orders = {}
    for events in burst:
        first = events[0]
        texts = slack.thread(first.channel, first.thread_ts)
        orders[first.t] = [key[1] for text in texts if (key := marker(text))]
    return orders


def asked(request: RecordedRequest) -> tuple[Key | None, list[Key]]:
    """The event a model call answers and the user turns its history holds, in order."""
    users = [
        key
        for m in request.body.get("messages", ())
        if m.get("role") == "user" and (key := marker(block_text(m.get("content"))))
    ]
    return (users[-1] if users else None), users


def asker(request: RecordedRequest) -> int | None:
    """The replica that made a model call (``None``: not one of the replicas)."""
    for name, value in request.headers.items():
        if name.lower() in ("x-api-key", "authorization") and "test-key-r" in value:
            return replica_of(value)
    return None


def in_flight(model: FakeAnthropic, slack: FakeSlack, index: int) -> set[Key]:
    """Events replica ``index`` asked the model about and nobody has answered yet."""
    done = answers(slack)
    return {
        event
        for r in model.requests
        if asker(r) == index and (event := asked(r)[0]) is not None and event not in done
    }


def history_faults(model: FakeAnthropic) -> list[tuple[Key, list[Key]]]:
    """Model calls whose history is not exactly the thread's earlier turns, in order."""
    faults = []
    for request in model.requests:
        event, users = asked(request)
        if event is None:
            continue
        t, k = event
        if users != [(t, i) for i in range(k + 1)]:
            faults.append((event, users))
    return faults


# ---------------------------------------------------------------------------------- Redis


async def redis_everything(url: str) -> tuple[list[str], str]:
    """Every key of a Redis database and every value in it, as text (for PII scans)."""
    client = aioredis.Redis.from_url(url)
    keys: list[str] = []
    parts: list[str] = []
    try:
        async for raw in client.scan_iter(count=1000):
            key = raw.decode()
            keys.append(key)
            parts.append(key)
            parts += [_text(v) for v in await _values(client, raw)]
    finally:
        await client.aclose()
    return keys, "\n".join(parts)


async def _values(client: aioredis.Redis, key: bytes) -> list[Any]:
    kind = (await client.type(key)).decode()
    if kind == "string":
        return [await client.get(key)]
    if kind == "list":
        return list(await client.lrange(key, 0, -1))
    if kind == "hash":
        return [x for pair in (await client.hgetall(key)).items() for x in pair]
    if kind == "set":
        return list(await client.smembers(key))
    if kind == "zset":
        return [m for m, _ in await client.zrange(key, 0, -1, withscores=True)]
    if kind == "stream":
        entries = await client.xrange(key, "-", "+")
        return [x for _, fields in entries for pair in fields.items() for x in pair]
    return []


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)


async def queue_state(url: str) -> dict[str, dict[str, int]]:
    """Per stream consumer group (``stream/group``): pending entries, unread entries (the
    stream's length when Redis cannot count them), and each consumer's pending entries."""
    client = aioredis.Redis.from_url(url, decode_responses=True)
    state: dict[str, dict[str, int]] = {}
    try:
        async for key in client.scan_iter(_type="stream", count=1000):
            for group in await client.xinfo_groups(key):
                name = f"{key}/{group['name']}"
                lag = group.get("lag")  # None when Redis cannot tell (entries deleted)
                state[name] = {
                    "pending": int(group["pending"]),
                    "lag": int(lag) if lag is not None else await client.xlen(key),
                }
                for consumer in await client.xinfo_consumers(key, group["name"]):
                    state[name][f"consumer:{consumer['name']}"] = int(consumer["pending"])
    finally:
        await client.aclose()
    return state


def pending_of(state: dict[str, dict[str, int]], replica: str) -> int:
    """Entries consumers named after ``replica`` (``VEILBOT_REPLICA_ID``) hold unacked."""
    return sum(
        n
        for group in state.values()
        for name, n in group.items()
        if name.startswith("consumer:") and replica in name.removeprefix("consumer:")
    )


def queue_settled(state: dict[str, dict[str, int]]) -> bool:
    """No stream entry is pending or unread (no queue at all counts as settled)."""
    return all(g["pending"] == 0 and g["lag"] == 0 for g in state.values())
