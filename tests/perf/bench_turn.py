"""Benchmark: what the guarded turn costs on top of the model call.

Runs 300 turns of realistic 10-60 word chat messages (about half with personal data) across
30 threads through the real composition root — real Redis, SQLite audit log, real Presidio —
against a zero-latency fake model server, and in the same process a bare Presidio
``analyze`` + ``anonymize`` of the same messages (stock Presidio: default recognizers on the
full spaCy pipeline), and veilbot's own detection alone. Prints p50/p95/p99 of each, the
ratio of the turn to stock Presidio, what the turn adds to its own detection, and peak RSS.
"What the turn adds" is printed twice: the turn's p50 minus the detection-alone p50 (runs
measured minutes apart, so on a shared machine it moves with the load), and per turn, the
wall time minus the model stage minus the time that turn's own detection took in its worker
thread (the thread hop, Redis, vault, history, output scan and audit write all count as the
turn's): the steadier figure. The steadiest is CPU time: the service's CPU per turn (every
thread of this process but the fake model server's), and that less its own detection; it
barely moves with the load others put on a shared machine. ``--no-baselines`` skips stock
Presidio and detection alone (the turn's own figures only, for quick before/after runs).

With ``--provider`` the turns run once per model provider, each against its fake (Bedrock
verifying SigV4, Vertex with a service-account token, an OpenAI-compatible server), and the
turn minus the model call is printed per provider beside the model call itself (the SDK,
signing and the loopback round trip): what veilbot adds must not depend on the provider.

With ``--concurrency N`` it measures throughput instead: the turns run N at a time, one
thread per concurrent caller (no lock waits), through the whole pipeline with detection in
``--workers`` processes (``VEILBOT_GUARDRAIL_WORKERS``) and the zero-latency model; it prints
guarded turns per second and the per-turn latency under that load.

    .venv/bin/python tests/perf/bench_turn.py [--turns 300] [--no-baselines]
    .venv/bin/python tests/perf/bench_turn.py [--turns 300] [--provider all|anthropic|...]
    .venv/bin/python tests/perf/bench_turn.py --concurrency 32 --workers 2 [--turns 600]
    valgrind --tool=callgrind --instr-atstart=no .venv/bin/python tests/perf/bench_turn.py \
        --callgrind [--turns 60]

``--callgrind`` counts instructions instead, which no load on the machine moves: under
callgrind with instrumentation off at start, it runs 20 warm-up turns and then switches
instrumentation on (``callgrind_control -i on``) for the turns only, detection in 2 worker
processes (not traced), so the count is the service process's own work (and the fake
model's thread, the same for any version). Instructions per turn: callgrind's "Collected"
divided by ``--turns``. Set ``PYTHONHASHSEED=0`` to compare versions.

Targets on a 2-core machine: ratio at p50 <= 1.3, turn overhead p99 <= 60 ms, RSS <= 400 MB,
the turn beyond its own detection <= 3 ms at p50, >= 100 turns/s with 2 workers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import sqlalchemy as sa  # noqa: E402
from sqlalchemy.ext.asyncio import create_async_engine  # noqa: E402

from bot.app import App, build_app  # noqa: E402
from bot.cli import loop  # noqa: E402
from bot.config.settings import Settings  # noqa: E402
from bot.core.logsafe import configure_logging  # noqa: E402
from bot.core.types import InboundMessage, ModelRequest, ModelResult, thread_id  # noqa: E402
from guardrails.detect.batching import Item  # noqa: E402
from guardrails.engine import resolve_model  # noqa: E402
from tests.fakes.anthropic_server import FakeAnthropic  # noqa: E402
from tests.fakes.base import FakeServer  # noqa: E402
from tests.fakes.bedrock_server import FakeBedrock  # noqa: E402
from tests.fakes.openai_server import FakeOpenAI  # noqa: E402
from tests.fakes.vertex_server import FakeVertex  # noqa: E402
from tests.fixtures.guardrail import TEST_VAULT_KEY_B64  # noqa: E402
from tests.fixtures.providers import PROVIDERS, provider_settings  # noqa: E402
from tests.fixtures.services import RedisServer, find_redis_server  # noqa: E402

FIRST = ["Maria", "John", "Priya", "Chen", "Olga", "Ahmed", "Lucia", "Tom", "Grace", "Kenji"]
LAST = ["Gonzalez", "Smith", "Natarajan", "Wei", "Petrova", "Hassan", "Rossi", "Baker"]
CITIES = ["Berlin", "Denver", "London", "Austin", "Madrid", "Toronto", "Lisbon"]
FILLER = (
    "the deploy failed again after the migration so we rolled back and the dashboard shows "
    "latency spikes on the checkout service can you summarise what changed in the release "
    "notes and suggest a plan for tomorrow's standup including the open tickets and owners"
).split()
PII_SNIPPETS = [
    lambda r: f"{r.choice(FIRST)} {r.choice(LAST)}",
    lambda r: f"{r.choice(FIRST).lower()}.{r.choice(LAST).lower()}@example.com",
    lambda r: f"+1 415 555 {r.randint(1000, 9999)}",
    lambda r: r.choice(CITIES),
    lambda r: "4111 1111 1111 1111",
    lambda r: "DE89 3704 0044 0532 0130 00",
]


def messages(count: int, seed: int = 7) -> list[str]:
    """Deterministic chat messages of 10-60 words; about half carry personal data."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = [rng.choice(FILLER) for _ in range(rng.randint(10, 55))]
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 3)):
                words.insert(rng.randrange(len(words)), rng.choice(PII_SNIPPETS)(rng))
        out.append(" ".join(words).capitalize() + ".")
    return out


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


STOCK_ENTITIES = [
    "PERSON",
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "LOCATION",
    "CREDIT_CARD",
    "US_SSN",
    "IBAN_CODE",
    "IP_ADDRESS",
    "CRYPTO",
    "US_PASSPORT",
    "US_BANK_NUMBER",
]
"""What the stock baseline looks for: the types veilbot's default policy covers."""


def stock_analyzer(model: str) -> object:
    """Presidio as a team would run it without veilbot: its default recognizers on the full
    spaCy pipeline of ``model``, built offline the way presidio's docs show (explicit NLP
    engine with the default NER mapping). veilbot's own engine runs only the NER component."""
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    from guardrails.engine import _ner_model_configuration

    config = {
        "nlp_engine_name": "spacy",
        "models": [{"lang_code": "en", "model_name": model}],
        "ner_model_configuration": _ner_model_configuration(),
    }
    engine = NlpEngineProvider(nlp_configuration=config).create_engine()
    return AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])


def bare_presidio(analyzer: object, texts: list[str]) -> list[float]:
    """Milliseconds per message for analyze + anonymize with Presidio's own engines."""
    from presidio_anonymizer import AnonymizerEngine

    anonymizer = AnonymizerEngine()
    bare_presidio_warm_up(analyzer, anonymizer)
    timings = []
    for text in texts:
        start = time.perf_counter()
        found = analyzer.analyze(  # type: ignore[attr-defined]
            text=text, language="en", entities=STOCK_ENTITIES, score_threshold=0.4
        )
        anonymizer.anonymize(text=text, analyzer_results=found)
        timings.append((time.perf_counter() - start) * 1000)
    return timings


def bare_presidio_warm_up(analyzer: object, anonymizer: object) -> None:
    """The first analysis pays Presidio's lazy start-up; the turns had a warm-up too."""
    found = analyzer.analyze(text="Hi, I'm Jane Doe", language="en")  # type: ignore[attr-defined]
    anonymizer.anonymize(text="Hi, I'm Jane Doe", analyzer_results=found)  # type: ignore[attr-defined]


def veilbot_detection(model: str, texts: list[str]) -> list[float]:
    """Milliseconds per message for veilbot's own detection alone (no Redis, no vault)."""
    from guardrails.detect.detection import detect
    from guardrails.engine import build_analyzer

    analyzer = build_analyzer(model)
    detect(analyzer, "Hi, I'm Jane Doe", "console")
    timings = []
    for text in texts:
        start = time.perf_counter()
        detect(analyzer, text, "console")
        timings.append((time.perf_counter() - start) * 1000)
    return timings


class _DetectionClock:
    """Time and CPU spent in the turn's own detection (in the worker thread, hop excluded)."""

    def __init__(self, app: App) -> None:
        engines = app.guardrail._detector._engines  # type: ignore[attr-defined]  # noqa: SLF001
        self.spent_ms = 0.0
        self.cpu_s = 0.0
        inner = engines.detect_many

        def timed(items: list[Item]) -> object:
            # the turns run one after another: each batch is one text
            start, cpu = time.perf_counter(), time.thread_time()
            try:
                return inner(items)
            finally:
                # items are (text, platform, prose, scope's policy): the prose pass is the
                # detection; the output scan (patterns only) counts as the turn's own work
                if any(prose for _, _, prose, _ in items):
                    self.spent_ms += (time.perf_counter() - start) * 1000
                    self.cpu_s += time.thread_time() - cpu

        engines.detect_many = timed


class _ModelClock:
    """CPU of this process's thread spent in the model call (the SDK's client side)."""

    def __init__(self, app: App) -> None:
        self.cpu_s = 0.0
        inner = app.model.complete

        async def timed(request: ModelRequest) -> ModelResult:
            cpu = time.thread_time()
            try:
                return await inner(request)
            finally:
                self.cpu_s += time.thread_time() - cpu

        app.model.complete = timed  # type: ignore[method-assign]


class _CpuClock:
    """CPU seconds of this process, all its threads but the fake model server's.

    The fake serves from a thread of this process (``tests.fakes.base``); its work is the
    model's side of the call, not the service's. CPU time, unlike wall time, barely moves
    with the load other work puts on a shared machine.
    """

    def __init__(self, fake: FakeServer | None) -> None:
        thread = fake._thread if fake is not None else None  # noqa: SLF001
        ident = thread.ident if thread is not None else None
        self._fake = time.pthread_getcpuclockid(ident) if ident is not None else None

    def now(self) -> float:
        spent = time.process_time()
        if self._fake is not None:
            spent -= time.clock_gettime(self._fake)
        return spent


@dataclass
class Turns:
    """Per turn in ms: wall time minus the model stage, the model stage, and wall time minus
    the model stage and the turn's own detection; CPU ms per turn of the service (fake model
    excluded) and of that in its own detection."""

    turn: list[float]
    model: list[float]
    beyond: list[float]
    cpu_ms: float = 0.0
    detection_cpu_ms: float = 0.0
    model_cpu_ms: float = 0.0


async def run_turns(settings: Settings, texts: list[str], fake: FakeServer | None = None) -> Turns:
    """The turns one after another; detection is measured inside each turn."""
    walls: dict[str, float] = {}
    detection: dict[str, float] = {}
    cpu = _CpuClock(fake)
    async with build_app(settings) as app:
        clock, model_clock = _DetectionClock(app), _ModelClock(app)
        cpu_start = cpu.now()
        for i, text in enumerate(texts):
            name = f"bench{i % 30}"
            msg = InboundMessage(
                thread_id=thread_id("console", name),
                platform="console",
                workspace="local",
                channel=name,
                user_id="bench",
                message_id=str(i),
                text=text,
            )
            before = clock.spent_ms
            start = time.perf_counter()
            reply = await app.conversation.handle(msg)
            if reply is None or not reply.ok:
                raise SystemExit(f"turn {i} failed: {reply}")
            walls[reply.run_id] = (time.perf_counter() - start) * 1000
            detection[reply.run_id] = clock.spent_ms - before
        cpu_ms = (cpu.now() - cpu_start) * 1000 / len(texts)
        detection_cpu_ms = clock.cpu_s * 1000 / len(texts)
        model_cpu_ms = model_clock.cpu_s * 1000 / len(texts)
    model_ms = await model_stage_ms(settings)
    return Turns(
        turn=[walls[run] - model_ms[run] for run in walls],
        model=[model_ms[run] for run in walls],
        beyond=[walls[run] - model_ms[run] - detection[run] for run in walls],
        cpu_ms=cpu_ms,
        detection_cpu_ms=detection_cpu_ms,
        model_cpu_ms=model_cpu_ms,
    )


async def model_stage_ms(settings: Settings) -> dict[str, float]:
    engine = create_async_engine(f"sqlite+aiosqlite:///{settings.data_dir / 'audit.db'}")
    async with engine.connect() as conn:
        rows = await conn.execute(sa.text("SELECT run_id, latencies_ms FROM audit_runs"))
        stages = {r.run_id: r.latencies_ms for r in rows}
    await engine.dispose()
    return {
        run: float((json.loads(s) if isinstance(s, str) else s)["model"])
        for run, s in stages.items()
    }


def inbound(i: int, text: str, thread: str) -> InboundMessage:
    """The ``i``-th bench message, in console thread ``thread``."""
    return InboundMessage(
        thread_id=thread_id("console", thread),
        platform="console",
        workspace="local",
        channel=thread,
        user_id="bench",
        message_id=str(i),
        text=text,
        event_id=f"bench-{i}",
    )


async def run_callgrind(settings: Settings, texts: list[str]) -> None:
    """The turns one after another, callgrind's instrumentation on around them only."""
    warm = messages(20, seed=11)
    async with build_app(settings) as app:
        for i, text in enumerate(warm):
            await app.conversation.handle(inbound(10_000 + i, text, f"bench{i % 30}"))
        _callgrind("on")
        for i, text in enumerate(texts):
            await app.conversation.handle(inbound(i, text, f"bench{i % 30}"))
        _callgrind("off")
    print(f"{len(texts)} turns instrumented: instructions per turn = callgrind's total / that")


def _callgrind(state: str) -> None:
    command = ["callgrind_control", "-i", state, str(os.getpid())]
    subprocess.run(command, check=True, capture_output=True)  # noqa: S603


async def run_throughput(
    settings: Settings, texts: list[str], concurrency: int, fake: FakeServer
) -> None:
    """Turns ``concurrency`` at a time, one thread per caller; prints turns/s and latency."""
    service = _CpuClock(fake)
    async with build_app(settings) as app:
        pending = list(enumerate(texts))
        pending.reverse()
        walls: list[float] = []

        async def caller(number: int) -> None:
            while pending:
                i, text = pending.pop()
                start = time.perf_counter()
                reply = await app.conversation.handle(inbound(i, text, f"load{number}"))
                if reply is None or not reply.ok:
                    raise SystemExit(f"turn {i} failed: {reply}")
                walls.append((time.perf_counter() - start) * 1000)

        start, cpu, own = time.perf_counter(), time.process_time(), service.now()
        await asyncio.gather(*(caller(n) for n in range(concurrency)))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        own = service.now() - own
    print(
        f"{len(texts)} turns, {concurrency} at a time, "
        f"{settings.guardrail_workers} detection worker(s), zero-latency model"
    )
    print(f"throughput: {len(texts) / elapsed:.1f} guarded turns/s   (target >= 100)")
    cells = "  ".join(f"p{p} {pct(walls, p):.1f}" for p in (50, 95, 99))
    print(f"turn latency under load (ms): {cells}")
    print(f"service process CPU per turn (workers excluded): {cpu / len(texts) * 1000:.2f} ms")
    print(f"  of which the service, fake model's thread excluded: {own / len(texts) * 1000:.2f} ms")
    print(f"load average: {os.getloadavg()[0]:.2f}")


def report(turns: Turns, bare: list[float] | None, own: list[float] | None) -> None:
    turn, beyond = turns.turn, turns.beyond
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{'':28}{'p50':>9}{'p95':>9}{'p99':>9}")
    rows = [("turn minus model call (ms)", turn)]
    if bare is not None and own is not None:
        rows += [("stock Presidio (ms)", bare), ("veilbot detection alone (ms)", own)]
    for label, values in rows:
        print(f"{label:28}" + "".join(f"{pct(values, p):9.2f}" for p in (50, 95, 99)))
    if bare is not None and own is not None:
        print(f"ratio at p50: {pct(turn, 50) / pct(bare, 50):.2f}   (target <= 1.3)")
        print(f"turn beyond its own detection at p50: {pct(turn, 50) - pct(own, 50):.1f} ms")
    cells = "  ".join(f"p{p} {pct(beyond, p):.2f}" for p in (50, 95, 99))
    print(f"turn beyond the detection it ran, per turn (ms): {cells}   (target p50 <= 3)")
    rest = turns.cpu_ms - turns.detection_cpu_ms - turns.model_cpu_ms
    print(
        f"service CPU per turn (fake model's thread excluded): {turns.cpu_ms:.2f} ms: "
        f"its own detection {turns.detection_cpu_ms:.2f}, "
        f"the model call (SDK) {turns.model_cpu_ms:.2f}, the rest of the turn {rest:.2f}"
    )
    print(f"turn overhead p99: {pct(turn, 99):.1f} ms   (target <= 60)")
    print(f"peak RSS: {rss_mb:.0f} MB   (target <= 400)")
    print(f"load average: {os.getloadavg()[0]:.2f}")


FAKES: dict[str, type[FakeServer]] = {
    "anthropic": FakeAnthropic,
    "bedrock": FakeBedrock,
    "vertex": FakeVertex,
    "openai": FakeOpenAI,
}


async def per_provider(names: list[str], redis_url: str, texts: list[str]) -> None:
    """The turn's overhead with each provider, beside that provider's own call."""
    print(f"{'per provider, ms':28}{'p50':>9}{'p95':>9}{'p99':>9}{'model p50':>11}")
    for name in names:
        with FAKES[name]() as fake, tempfile.TemporaryDirectory() as tmp:
            key_file = None
            if isinstance(fake, FakeVertex):
                key_file = Path(tmp) / "key.json"
                key_file.write_text(json.dumps(fake.service_account_info()))
            settings = Settings(
                data_dir=Path(tmp),
                redis_url=redis_url,
                redis_prefix=f"bench-{name}",
                vault_key=TEST_VAULT_KEY_B64,  # type: ignore[arg-type]
                model_max_retries=0,
                **provider_settings(name, fake, key_file),
            )
            turns = await run_turns(settings, texts)
        cells = "".join(f"{pct(turns.turn, p):9.2f}" for p in (50, 95, 99))
        print(f"{name + ': turn minus model':28}{cells}{pct(turns.model, 50):11.2f}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--provider", choices=[*PROVIDERS, "all"], default=None)
    parser.add_argument("--concurrency", type=int, default=0, help="throughput mode")
    parser.add_argument("--workers", type=int, default=2, help="with --concurrency or --callgrind")
    parser.add_argument(
        "--no-baselines", action="store_true", help="skip stock Presidio and detection alone"
    )
    parser.add_argument(
        "--callgrind", action="store_true", help="instructions per turn, under valgrind"
    )
    return parser.parse_args()


async def main(args: argparse.Namespace) -> None:
    configure_logging("WARNING")
    texts = messages(args.turns)
    redis_url = os.environ.get("VEILBOT_TEST_REDIS_URL")
    server = None
    if not redis_url:
        binary = find_redis_server()
        assert binary, "no redis-server: set VEILBOT_TEST_REDIS_URL"
        server = RedisServer(binary)
        server.start()
        redis_url = server.url
    try:
        if args.provider:
            names = list(PROVIDERS) if args.provider == "all" else [args.provider]
            print(f"{len(texts)} turns per provider, 30 threads")
            await per_provider(names, redis_url, texts)
            return
        with FakeAnthropic() as fake, tempfile.TemporaryDirectory() as tmp:
            settings = Settings(
                data_dir=Path(tmp),
                redis_url=redis_url,
                redis_prefix="bench",
                vault_key=TEST_VAULT_KEY_B64,
                anthropic_api_key="bench",  # type: ignore[arg-type]
                anthropic_base_url=fake.url,
                model_max_retries=0,
                guardrail_workers=args.workers if args.concurrency or args.callgrind else 0,
            )
            if args.callgrind:
                await run_callgrind(settings, texts)
                return
            if args.concurrency:
                await run_throughput(settings, texts, args.concurrency, fake)
                return
            turns = await run_turns(settings, texts, fake)
            bare = own = None
            if not args.no_baselines:
                model = resolve_model(settings.spacy_model)
                bare = bare_presidio(stock_analyzer(model), texts)
                own = veilbot_detection(model, texts)
        print(f"{len(texts)} turns, {len({t for t in texts})} distinct messages, 30 threads")
        report(turns, bare, own)
    finally:
        if server:
            server.cleanup()


if __name__ == "__main__":
    arguments = parse_args()
    loop.run(main(arguments))  # the service's default event loop
