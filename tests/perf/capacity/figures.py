"""The measured service times the simulation runs on, each with the benchmark it comes from.

The "Latest figures" table in ``docs/performance.md`` was taken on this 2-core machine when
it ran about 2.6 times faster than it did for this model (``bench_ack``: 0.11-0.12 ms of
service CPU per ack then, 0.27-0.37 ms now), so the figures below were measured afresh,
within a quarter of an hour at load 3.6-6.6 on 2 cores (``docs/performance.md``, Capacity).
Only calibration runs feed them (``bench_ack``, ``bench_turn``, detection alone); the
``bench_slack`` runs that ``--validate`` compares against are not used here.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Figures:
    """Service times (ms of CPU unless named otherwise) and counts per event or turn."""

    ack_ms: float = 0.31
    """``bench_ack``: service CPU per ack, mean of 4 rounds (0.27-0.37 ms)."""
    client_ms: float = 0.26
    """``bench_ack``: the client's CPU per ack (aiohttp, 0.23-0.30 ms): in ``bench_slack`` all
    in one process the client shares the service's event loop; its lean client costs at most
    this."""
    redis_commands_per_ack: float = 4.09
    """``bench_ack``: Redis commands per ack (``INFO commandstats``), every round."""
    redis_command_ms: float = 0.0089
    """redis-server CPU over commands counted during ``bench_turn`` (0.29 s / 33 248 and
    0.34 s / 37 456; commands inside Lua scripts count)."""
    redis_commands_per_turn: float = 118.0
    """``bench_turn``: commands counted per turn (111 and 125 in two runs of 300 turns)."""
    detect_p50_ms: float = 3.9
    """Detection CPU alone (``guardrails.detect.detection.detect``, thread time, as
    ``bench_turn``'s ``veilbot_detection``) on ``bench_slack``'s own texts (``msg-T-K please
    answer``): p50 of 500, 3.66 and 4.18 ms in two runs. (Their mean, 11 ms, is the first
    texts' warm-up, which a running service has behind it.)"""
    detect_p95_ms: float = 5.45
    """The same, p95: 4.95 and 5.94 ms."""
    chat_detect_p50_ms: float = 8.9
    """The same on ``bench_turn``'s 10-60 word chat messages: p50 of 300, 9.34 and 8.49 ms."""
    chat_detect_p95_ms: float = 15.4
    """The same, p95: 15.16 and 15.61 ms."""
    detect_batch_ms: float = 0.0
    """What one NER pass costs beyond its texts' own times: one text alone against its share
    of a batch (``python -m tests.perf.capacity.detection``). ``detect_p50_ms`` and
    ``detect_p95_ms`` are then each text's share in a batch of 8. Not measured in this
    sitting, whose detection figures are one text at a time: 0."""
    scan_ms: float = 0.0
    """The output scan of an answer in a detection process (pattern rules, no NER), every
    turn after the model's answer. Not measured in this sitting: 0."""
    fakes_ms: float = 0.0
    """``bench_slack``'s own process per turn (its fake model and fake Slack answering the
    turn's requests; the sender's share is ``client_ms``), with ``Topology.fakes``. Not
    measured in this sitting: 0."""
    turn_ms: float = 4.8
    """``bench_turn --concurrency 32 --workers 2``: the service's CPU per turn, detection in
    its processes, the fake model's thread excluded (4.88 and 4.79 ms): what a turn asks of
    the event loop (the Redis client, vault, history, the model SDK, the audit writer)."""
    turn_spread: float = 1.68
    """``bench_turn``: p95 / p50 of the turn minus its model call (1.77 and 1.58)."""
    audit_postgres_ms: float = 33.0
    """``bench_audit``: PostgreSQL ``record()`` with 8 writers, 240 records/s (Latest
    figures): 8 / 240 s per record, by Little's law. A wait for the turn, not CPU here."""
    queue_workers: int = 32
    """``Settings.queue_workers`` default: turns one replica works at once."""
    acks_first_s: float = 0.25
    """``Settings.queue_acks_first_seconds`` default: the longest a turn waits for acks."""
    acks_quiet_s: float = 0.02
    """``bot.state.acks.QUIET_SECONDS``: no ack for this long, the burst is over."""


def lognormal(rng: random.Random, p50: float, p95: float) -> float:
    """A draw from the log-normal distribution with this median and 95th percentile."""
    sigma = math.log(p95 / p50) / 1.6449 if p95 > p50 else 0.0
    return rng.lognormvariate(math.log(p50), sigma)


SITTINGS: dict[str, Figures] = {
    "2026-12-02 19:01": replace(
        Figures(),
        ack_ms=0.59,
        client_ms=0.51,
        detect_p50_ms=3.49,
        detect_p95_ms=4.65,
        detect_batch_ms=2.06,
        scan_ms=0.80,
        turn_ms=8.25,
        redis_command_ms=0.0051,
        fakes_ms=1.06,
    ),
}
"""Later sittings' figures, each measured within minutes on this shared 2-core machine:
``bench_ack --rounds 2`` (ack and client CPU: 0.63 and 0.55 ms, client 0.52 and 0.50);
``python -m tests.perf.capacity.detection`` (texts in batches of 8 p50 3.49, p95 4.65 ms;
alone 5.55 ms, so 2.06 ms a pass; answers 0.80 ms); and one ``bench_slack --model-delay 0
--guardrail-workers 2 --threads 100 --replicas 1`` (500 events: its CPU per turn by process,
from ``/proc``, at 19:02, 0.90 of the 2 cores theirs: service 8.84 ms less the ack is
``turn_ms``; Redis 0.62 ms over the commands of a turn and an ack (``bench_turn``'s 118 and
``bench_ack``'s 4.09) is ``redis_command_ms``; its own 1.57 ms less the sender's is
``fakes_ms``). The throughput
run that ``--validate`` compares with (200 threads, 1 000 events) feeds none of them."""
