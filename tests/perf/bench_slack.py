"""Benchmark: a burst of signed Slack events over HTTP against the real service.

500 ``app_mention`` events across 100 threads (5 per thread, each thread's events sent one
after another, threads concurrently), a fake model that takes 1 s per answer, real Redis and
Presidio. Prints ack latency p50/p99/max, answers delivered (duplicates, per-thread order),
the total time and the answer rate (guarded turns per second, from the first delivery to the
last answer). Run on demand, not part of the suite:

    python -m tests.perf.bench_slack [--threads 100] [--per-thread 5] [--model-delay 1.0]
        [--guardrail-workers 1] [--replicas 0] [--copies 1] [--ingress 0]

``--replicas 0`` (the default) runs the service (``bot.service.running``) in this process;
``--replicas N`` starts N ``veilbot run slack`` processes on one Redis (the harness of
``tests/e2e/test_replicas.py``; each its own SQLite audit file unless ``--database-url``)
and, with ``--copies 3``, delivers every event to three of them as Slack's retries do.
``--ingress K`` (with ``--replicas N``) starts K more with ``VEILBOT_QUEUE_WORKERS=0`` and
delivers every event to those only: acks that never wait behind turns, the N answer.
Throughput: ``--model-delay 0 --guardrail-workers 2 --threads 200 --per-thread 5``.
``--long 40000`` makes the first event of thread 0 an adversarial message of that many
characters (words joined by dots and hyphens, digits and dashes), sent alone first; the
burst follows as soon as its turn has begun (its thread's lock is in Redis), while it is
analysed, and the ack latency of the other events is reported: what one long message costs
everyone else, with the default settings (``--acks-first 0`` lets every turn begin at once,
as this benchmark did before).
With ``--replicas N`` it also prints the CPU each kind of process used per answered turn
over the burst (``/proc``): the service processes, their detection processes, the Redis
server it started, and its own process (sender, fake Slack and model), which share the cores.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from urllib.parse import urlsplit

import redis as sync_redis
import redis.asyncio as aioredis

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

from bot.app import build_app  # noqa: E402
from bot.config.settings import Settings  # noqa: E402
from bot.service import running  # noqa: E402
from tests.e2e.replicas import (  # noqa: E402
    AnswerWatch,
    Endpoint,
    Event,
    Sent,
    Target,
    answers,
    bot_token,
    other_posts,
    plan,
    running_replicas,
    send_burst,
    thread_orders,
)
from tests.fakes.anthropic_server import FakeAnthropic  # noqa: E402
from tests.fakes.slack_payloads import SIGNING_SECRET, signed_headers  # noqa: E402
from tests.fakes.slack_server import FakeSlack  # noqa: E402
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64  # noqa: E402
from tests.fixtures.processes import children_of, cpu_ticks  # noqa: E402
from tests.fixtures.services import RedisServer, find_redis_server, free_port  # noqa: E402

PREFIX = "bench"
DEFAULT_ACKS_FIRST = Settings.model_fields["queue_acks_first_seconds"].default


class Clock:
    """When the burst began and when the latest answer was seen."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.acked = 0.0
        self.last_answer = 0.0


_TICK = os.sysconf("SC_CLK_TCK")


def _role(pid: int) -> str:
    """A replica's child by its command line: a detection process, or another helper."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "other helpers"
    if b"spawn_main" in command:
        return "detection processes"
    return "other helpers"


def _peak_mb(pid: int) -> float:
    """A live process's peak resident memory (``VmHWM``), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / 1e6
    return 0.0


def _commands(redis_url: str) -> Counter[str]:
    """The calls Redis has counted so far, per command (``INFO commandstats``)."""
    with sync_redis.from_url(redis_url) as client:
        stats = client.info("commandstats")
    return Counter({name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()})


class CpuUse:
    """CPU seconds each kind of process used over the burst (Linux ``/proc``), per turn.

    The service processes, their detection processes and other helpers, the Redis server this
    benchmark started, and this process (the sender, fake Slack and the fake model): what a
    guarded turn costs where, on the cores they all share.
    """

    def __init__(self, services: Sequence[int], redis_pid: int | None, redis_url: str) -> None:
        self.redis_url = redis_url
        self.commands = _commands(redis_url)
        self.pids: dict[str, list[int]] = {"service processes": list(services)}
        for service in services:
            for child in children_of(service):
                self.pids.setdefault(_role(child), []).append(child)
        if redis_pid is not None:
            self.pids["redis-server"] = [redis_pid]
        self.start = self._now()
        self.peak_mb: dict[int, float] = {}
        self.began = time.perf_counter()
        self.used: dict[str, float] = {}
        self.seconds = 0.0

    def _now(self) -> dict[str, float]:
        ticks = {role: sum(map(cpu_ticks, pids)) / _TICK for role, pids in self.pids.items()}
        return {**ticks, "this process (sender, fake Slack and model)": time.process_time()}

    def stop(self) -> None:
        """Read the counters at the end of the burst (the processes still running)."""
        now = self._now()
        self.used = {role: now[role] - self.start[role] for role in now}
        after = _commands(self.redis_url)
        self.commands = Counter({name: n - self.commands[name] for name, n in after.items()})
        self.seconds = time.perf_counter() - self.began
        self.peak_mb = {pid: _peak_mb(pid) for pid in self.pids["service processes"]}


async def _watch(slack: FakeSlack, total: int, clock: Clock, within: float) -> None:
    """Wait until ``total`` events are answered (or ``within`` s), noting the last answer."""
    seen, watch = 0, AnswerWatch(slack)
    while seen < total and time.perf_counter() - clock.start < within:
        count = watch.count()
        if count != seen:
            seen, clock.last_answer = count, time.perf_counter()
        await asyncio.sleep(0.02)


async def _burst(
    targets: Sequence[Target],
    burst: list[list[Event]],
    slack: FakeSlack,
    copies: int,
    *,
    long_first: Callable[[], Awaitable[None]] | None = None,
) -> tuple[Sent, Clock]:
    total = sum(map(len, burst))
    # This process stands in for Slack: keep its own full garbage collections (each walks
    # what the imports and fakes built, tens of ms) out of the latencies it measures.
    gc.collect()
    gc.freeze()
    clock = Clock()
    watcher = asyncio.create_task(_watch(slack, total, clock, within=600))

    async def send(part: list[list[Event]]) -> Sent:
        if copies == 1:
            return await lean_burst(targets, part)
        return await send_burst(targets, part, copies=copies)

    if long_first is not None:  # the burst arrives once its turn began, while it is analysed
        sent = await send([burst[0][:1]])
        await long_first()
        rest = await send([burst[0][1:], *burst[1:]])
        sent.statuses.update(rest.statuses)
        sent.ack_seconds += rest.ack_seconds
        sent.first_ack_seconds.update(rest.first_ack_seconds)
        sent.retry_after += rest.retry_after
    else:
        sent = await send(burst)
    clock.acked = time.perf_counter()
    await watcher
    return sent, clock


class _Connection:
    """One keep-alive HTTP/1.1 connection to an events endpoint, as Slack's sender holds."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self._host, self._port = parts.hostname or "127.0.0.1", parts.port or 80
        self._path = parts.path or "/"
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, body: bytes, headers: dict[str, str]) -> int:
        """Send one request and read its whole response; the status."""
        if self._streams is None:
            self._streams = await asyncio.open_connection(self._host, self._port)
        reader, writer = self._streams
        head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        writer.write(
            f"POST {self._path} HTTP/1.1\r\nHost: {self._host}:{self._port}\r\n{head}"
            f"Content-Length: {len(body)}\r\n\r\n".encode("latin-1")
            + body
        )
        response = await reader.readuntil(b"\r\n\r\n")
        lines = response.decode("latin-1").split("\r\n")
        fields = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
        await reader.readexactly(int(fields.get("Content-Length", "0")))
        return int(lines[0].split()[1])

    def close(self) -> None:
        if self._streams is not None:
            self._streams[1].close()


async def lean_burst(targets: Sequence[Target], burst: Sequence[Sequence[Event]]) -> Sent:
    """``send_burst`` with one delivery each, through a client that costs this machine little.

    The benchmark's client shares the cores with the service it measures: aiohttp's client
    took more CPU per request (about 0.65 ms) than the service's ack (about 0.4 ms), and the
    first wave of 100 new connections waited for the client as much as for the service. Here
    a thread's events go over one keep-alive connection of its own, signed just before they
    are sent (each timed from its write, or its connect, to the end of its response).
    """
    sent = Sent()

    async def thread(events: Sequence[Event]) -> None:
        connections: dict[int, _Connection] = {}
        try:
            for event in events:
                target = targets[(event.t + event.k) % len(targets)]
                if target.index not in connections:
                    connections[target.index] = _Connection(target.events_url)
                headers = signed_headers(event.body)
                body = event.body.encode()
                start = time.perf_counter()
                try:
                    status = await connections[target.index].post(body, headers)
                except (OSError, asyncio.IncompleteReadError):
                    status = 0
                if status == 200:
                    took = time.perf_counter() - start
                    sent.ack_seconds.append(took)
                    sent.first_ack_seconds.setdefault(event.key, took)
                sent.statuses[event.key] = [(target.index, status)]
        finally:
            for connection in connections.values():
                connection.close()

    await asyncio.gather(*(thread(events) for events in burst))
    return sent


def adversarial(size: int) -> str:
    """Words joined by dots and hyphens, and digits with dashes: the costliest shapes."""
    unit = "the.deploy.failed.again-on-staging-after 12-34-56-78-90 jane.doe.at.acme "
    return (unit * (size // len(unit) + 1))[:size]


def _turn_begun(args: argparse.Namespace, redis_url: str) -> Callable[[], Awaitable[None]] | None:
    """With ``--long``: waits until the long message's turn holds its thread's lock."""
    if not args.long:
        return None

    async def begun() -> None:
        client = aioredis.from_url(redis_url)
        try:
            pattern = f"{PREFIX}:{{slack:*:{_plan(args)[0][0].ts}}}:lock"
            while not await client.keys(pattern):
                await asyncio.sleep(0.005)  # polling Redis for the lock, not a timed guess
        finally:
            await client.aclose()

    return begun


def _plan(args: argparse.Namespace) -> list[list[Event]]:
    if not args.long:
        return plan(args.threads, args.per_thread)
    long_text = adversarial(args.long)
    return plan(args.threads, args.per_thread, extra=lambda t, k: long_text if t == k == 0 else "")


def _settings(
    args: argparse.Namespace, data: Path, redis_url: str, model: FakeAnthropic, slack: FakeSlack
) -> Settings:
    return Settings(
        data_dir=data,
        redis_url=redis_url,
        redis_prefix=PREFIX,
        vault_key=TEST_VAULT_KEY_B64,
        anthropic_api_key="bench-key",
        anthropic_base_url=model.url,
        model_max_retries=0,
        slack_bot_token=bot_token(0),
        slack_signing_secret=SIGNING_SECRET,
        slack_api_url=slack.api_url,
        slack_http_port=free_port(),
        slack_streaming="off",
        guardrail_workers=args.guardrail_workers,
        max_input_chars=max(8000, args.long + 100),
        queue_acks_first_seconds=args.acks_first,
        log_level="WARNING",
    )


async def in_process(
    args: argparse.Namespace, redis_url: str, model: FakeAnthropic, data: Path
) -> tuple[Sent, Clock, FakeSlack]:
    """The service in this process (one event loop for the service and the client)."""
    async with FakeSlack() as slack:
        settings = _settings(args, data, redis_url, model, slack)
        async with build_app(settings) as app, running(app, ["slack"]) as service:
            here = Endpoint(0, f"{service.http.url}{settings.slack_http_path}")
            burst = _plan(args)
            begun = _turn_begun(args, redis_url)
            sent, clock = await _burst([here], burst, slack, copies=1, long_first=begun)
            await service.drain(60)
    return sent, clock, slack


async def replicated(
    args: argparse.Namespace, redis_url: str, model: FakeAnthropic, data: Path
) -> tuple[Sent, Clock, FakeSlack]:
    """``args.replicas`` service processes on one Redis."""
    extra = {
        "VEILBOT_GUARDRAIL_WORKERS": str(args.guardrail_workers),
        "VEILBOT_LOG_LEVEL": "WARNING",
    }
    if args.long:
        extra["VEILBOT_MAX_INPUT_CHARS"] = str(max(8000, args.long + 100))
    if args.acks_first != DEFAULT_ACKS_FIRST:
        extra["VEILBOT_QUEUE_ACKS_FIRST_SECONDS"] = str(args.acks_first)
    shared = {"redis_url": redis_url, "prefix": PREFIX, "database_url": args.database_url}
    async with FakeSlack() as slack, AsyncExitStack() as stack:
        replicas = await stack.enter_async_context(
            running_replicas(
                args.replicas, data_dir=data, slack=slack, model=model, **shared, **extra
            )
        )
        if args.ingress:  # they take every delivery; the replicas above only work the queue
            (data / "ingress").mkdir()
            ingress_only = {**extra, "VEILBOT_QUEUE_WORKERS": "0"}
            replicas = await stack.enter_async_context(
                running_replicas(
                    args.ingress,
                    data_dir=data / "ingress",
                    slack=slack,
                    model=model,
                    **shared,
                    **ingress_only,
                )
            )
        burst = _plan(args)
        begun = _turn_begun(args, redis_url)
        cpu = CpuUse([r.child.proc.pid for r in replicas], args.redis_pid, redis_url)
        sent, clock = await _burst(replicas, burst, slack, copies=args.copies, long_first=begun)
        cpu.stop()
        args.cpu = cpu
    return sent, clock, slack


def _p99(ordered: list[float]) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def report(args: argparse.Namespace, sent: Sent, clock: Clock, slack: FakeSlack) -> None:
    """Print the figures."""
    total = args.threads * args.per_thread
    acks = sorted(sent.ack_seconds)
    p99 = _p99(acks)
    got = answers(slack)
    duplicates = sum(len(v) - 1 for v in got.values())
    burst = _plan(args)
    disordered = sum(1 for ks in thread_orders(slack, burst).values() if ks != sorted(ks))
    span = clock.last_answer - clock.start
    where = f"{args.replicas} replica processes" if args.replicas else "in this process"
    if args.ingress:
        where += f", deliveries to {args.ingress} more with VEILBOT_QUEUE_WORKERS=0"
    print(
        f"service:              {where}, guardrail workers {args.guardrail_workers}, "
        f"acks first {args.acks_first} s"
    )
    print(
        f"events sent:          {total} ({args.threads} threads x {args.per_thread}), "
        f"{args.copies} deliveries each, model {args.model_delay}s"
    )
    print(
        f"ack latency:          p50 {statistics.median(acks) * 1000:.1f} ms, "
        f"p99 {p99 * 1000:.1f} ms, max {acks[-1] * 1000:.1f} ms ({len(acks)} acks)"
    )
    # each thread's first event goes out on a new connection (all threads at once); the
    # later ones reuse them, as behind a proxy that keeps its connections to the pods open
    opened = sorted(s for (_, k), s in sent.first_ack_seconds.items() if k == 0)
    reused = sorted(s for (_, k), s in sent.first_ack_seconds.items() if k > 0)
    for name, part in (("new connections", opened), ("open connections", reused)):
        if part:
            print(
                f"  on {name + ':':17} p50 {statistics.median(part) * 1000:.1f} ms, "
                f"p99 {_p99(part) * 1000:.1f} ms ({len(part)} events)"
            )
    if args.long:
        others = sorted(s for key, s in sent.first_ack_seconds.items() if key != (0, 0))
        print(
            f"  beside {args.long} chars: p50 {statistics.median(others) * 1000:.1f} ms, "
            f"p99 {_p99(others) * 1000:.1f} ms, max {others[-1] * 1000:.1f} ms "
            f"({len(others)} other events; the long one {sent.first_ack_seconds[(0, 0)]:.2f} s)"
        )
    print(f"acked within 3 s:     {sum(a < 3 for a in acks)}/{len(acks)}")
    print(f"all acked after:      {clock.acked - clock.start:.2f} s")
    print(
        f"answers delivered:    {len(got)}/{total}, duplicates {duplicates}, "
        f"threads out of order {disordered}, other posts {len(other_posts(slack))}"
    )
    print(f"total time:           {span:.2f} s (first delivery to last answer)")
    print(f"guarded turns/s:      {len(got) / span:.1f}" if span > 0 else "no answers")
    cpu: CpuUse | None = getattr(args, "cpu", None)
    if cpu is not None and got:
        print("CPU per answered turn over the burst, by process (ms):")
        for role, seconds in cpu.used.items():
            print(f"  {role + ':':44} {seconds / len(got) * 1000:6.2f}")
        print(f"  {'all of them:':44} {sum(cpu.used.values()) / len(got) * 1000:6.2f}")
        peaks = ", ".join(f"{mb:.0f}" for mb in cpu.peak_mb.values())
        commands = cpu.commands - Counter({"info": 1})  # its first read, counted by the second
        each = ", ".join(f"{name} {n / len(got):.1f}" for name, n in commands.most_common(6))
        print(f"Redis commands/turn:  {commands.total() / len(got):.1f} ({each})")
        print(f"service peak RSS:     {peaks} MB (VmHWM of each service process)")
        cores = sum(cpu.used.values()) / cpu.seconds
        print(f"cores they had:       {cores:.2f} of {os.cpu_count()} (their CPU over the burst)")
    print(f"load average:         {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


async def bench(args: argparse.Namespace, redis_url: str) -> None:
    """Run the burst and print the figures."""
    with FakeAnthropic() as model, tempfile.TemporaryDirectory() as data:
        model.delay = args.model_delay
        run = replicated if args.replicas else in_process
        sent, clock, slack = await run(args, redis_url, model, Path(data))
    report(args, sent, clock, slack)


def main() -> None:
    """Parse arguments, start a private Redis unless one is given, run the benchmark."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=100)
    parser.add_argument("--per-thread", type=int, default=5)
    parser.add_argument("--model-delay", type=float, default=1.0)
    parser.add_argument("--guardrail-workers", type=int, default=1)
    parser.add_argument("--replicas", type=int, default=0)
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--ingress", type=int, default=0)
    parser.add_argument("--long", type=int, default=0, help="one adversarial message this long")
    parser.add_argument(
        "--acks-first",
        type=float,
        default=DEFAULT_ACKS_FIRST,
        help="VEILBOT_QUEUE_ACKS_FIRST_SECONDS (0: every turn begins at once)",
    )
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--redis-url", default=os.environ.get("VEILBOT_TEST_REDIS_URL"))
    args = parser.parse_args()
    if args.copies > max(1, args.ingress or args.replicas):
        parser.error("--copies cannot exceed the replicas that take deliveries")
    if args.ingress and not args.replicas:
        parser.error("--ingress needs --replicas (the processes that answer)")
    server = None
    if args.redis_url is None:
        binary = find_redis_server()
        if binary is None:
            raise SystemExit("no redis-server found; pass --redis-url")
        server = RedisServer(binary)
        server.start()
    args.redis_pid = server.proc.pid if server is not None and server.proc is not None else None
    try:
        asyncio.run(bench(args, args.redis_url or server.url))  # type: ignore[union-attr]
    finally:
        if server is not None:
            server.cleanup()


if __name__ == "__main__":
    main()
