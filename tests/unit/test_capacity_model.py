"""The capacity model's simulation (``tests.perf.capacity``): its queues behave as queues."""

from __future__ import annotations

import functools
import random
from dataclasses import replace

from tests.perf.capacity.engine import Batches, Calendar, Cores, Server
from tests.perf.capacity.figures import Figures
from tests.perf.capacity.model import Deployment, Topology
from tests.perf.capacity.runs import Company, run_burst, run_company
from tests.perf.capacity.workload import burst


def test_a_fixed_seed_gives_the_same_run() -> None:
    topology = Topology(detectors=2, cores=2, others=1, model_s=0.0, chat=False)
    first = run_burst(Figures(), topology, threads=30, per_thread=3, seed=5)
    again = run_burst(Figures(), topology, threads=30, per_thread=3, seed=5)
    assert first.acks == again.acks
    assert first.answers == again.answers


def test_more_detection_processes_never_lower_throughput() -> None:
    rates = []
    for detectors in (1, 2, 4, 8):
        topology = Topology(detectors=detectors, model_s=0.0, chat=True)
        rates.append(run_burst(Figures(), topology, threads=60, per_thread=4).throughput())
    assert all(later >= earlier for earlier, later in zip(rates, rates[1:], strict=False))
    assert rates[-1] > rates[0]  # detection is what limits one process


def test_more_replicas_never_raise_ack_latency() -> None:
    company = Company(50_000, burst_share=0.004)
    p99 = []
    for replicas in (1, 2, 4):
        outcome = run_company(Figures(), Topology(replicas=replicas), company, seconds=5.0)
        p99.append(sorted(outcome.acks)[int(len(outcome.acks) * 0.99)])
    assert p99 == sorted(p99, reverse=True)


def test_one_server_matches_mm1_mean_wait() -> None:
    calendar, rng = Calendar(), random.Random(3)
    server = Server(calendar, Cores(calendar, None))
    arrival_rate, service_rate, customers = 0.6, 1.0, 40_000
    sojourns: list[float] = []

    def arrive(at: float) -> None:
        server.submit(rng.expovariate(service_rate), lambda: sojourns.append(calendar.now - at))

    when = 0.0
    for _ in range(customers):
        when += rng.expovariate(arrival_rate)
        calendar.at(when, functools.partial(arrive, when))
    calendar.run()
    expected = 1 / (service_rate - arrival_rate)  # M/M/1 mean time in the system
    assert abs(sum(sojourns) / len(sojourns) - expected) / expected < 0.08


def test_cores_are_shared_between_running_jobs() -> None:
    calendar = Calendar()
    cores, ended = Cores(calendar, 1), list[str]()
    for name in ("a", "b"):
        calendar.at(0.0, functools.partial(cores.run, 1.0, functools.partial(ended.append, name)))
    calendar.at(0.5, lambda: ended.append(f"half-way {calendar.now}"))
    calendar.run()
    # two 1-second jobs on one core: neither is done at 1 s, both at 2 s
    assert ended[0] == "half-way 0.5"
    assert sorted(ended[1:]) == ["a", "b"]
    assert calendar.now == 2.0


def test_texts_that_wait_together_pay_one_ner_pass() -> None:
    calendar = Calendar()
    batches = Batches(calendar, Cores(calendar, None), slots=1, per_batch=1.0)
    ended: list[float] = []
    for _ in range(5):  # the first goes alone; the four behind it wait and go together
        batches.submit(0.5, lambda: ended.append(calendar.now))
    calendar.run()
    assert ended == [1.5, 4.5, 4.5, 4.5, 4.5]
    assert batches.busy_seconds == 2 * 1.0 + 5 * 0.5


def test_every_turn_scans_its_answer_in_a_detection_process() -> None:
    figures = replace(Figures(), detect_batch_ms=0.0, scan_ms=2.0)
    topology = Topology(detectors=1, model_s=0.0, chat=False)
    deployment = Deployment(figures, topology)
    burst(deployment, 10, 1)
    deployment.calendar.run()
    busy = deployment.replicas[0].detection.busy_seconds
    assert len(deployment.outcome.answers) == 10
    assert busy > 10 * (figures.scan_ms / 1000)  # the scans, beside the texts' own detection
