"""Runs of the model: one configuration, its percentiles, and the sizing search."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from tests.perf.capacity.figures import Figures
from tests.perf.capacity.model import Deployment, Outcome, Topology
from tests.perf.capacity.workload import at_once, burst, poisson


def pct(values: list[float], p: float) -> float:
    """The ``p``-th percentile (0-100) of ``values``, nearest rank (as ``bench_slack``)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


def run_burst(
    figures: Figures, topology: Topology, threads: int, per_thread: int, seed: int = 1
) -> Outcome:
    """``bench_slack``'s burst: ``threads`` senders, ``per_thread`` events each."""
    deployment = Deployment(figures, topology, seed)
    burst(deployment, threads, per_thread)
    deployment.calendar.run()
    return deployment.outcome


@dataclass(frozen=True)
class Company:
    """A company's busy hour, and the assumptions that turn members into events per second.

    Attributes:
        members: people in the workspace.
        active: share of them active in the busy hour.
        per_hour: messages to the bot per active member in that hour.
        peak: the busiest minute's rate over the hour's average.
        burst_share: events delivered at one moment (an announcement answered at once), as a
            share of the members.
    """

    members: int
    active: float = 0.25
    per_hour: float = 2.0
    peak: float = 3.0
    burst_share: float = 0.001

    def rate(self) -> float:
        """Events per second in the peak minute."""
        return self.members * self.active * self.per_hour / 3600 * self.peak


@dataclass(frozen=True)
class Targets:
    """What a sized deployment must keep."""

    ack_p99_s: float = 0.05
    answer_p95_s: float = 0.5


def run_company(
    figures: Figures, topology: Topology, company: Company, seconds: float = 20.0, seed: int = 1
) -> Outcome:
    """``seconds`` of the peak minute's Poisson stream, with one burst at a third of it."""
    deployment = Deployment(figures, topology, seed)
    threads = max(1, company.members // 20)
    poisson(deployment, company.rate(), seconds, threads, random.Random(seed))
    at_once(deployment, int(company.members * company.burst_share), seconds / 3, threads)
    deployment.calendar.run()
    return deployment.outcome


def meets(outcome: Outcome, targets: Targets) -> bool:
    """Whether ack p99 and the answer delay's p95 keep their targets."""
    return (
        pct(outcome.acks, 99) <= targets.ack_p99_s
        and pct(outcome.answers, 95) <= targets.answer_p95_s
    )


def size(
    figures: Figures, base: Topology, company: Company, targets: Targets, most_detectors: int = 4
) -> tuple[Topology, Outcome] | None:
    """The fewest cores (replicas x (1 + detectors)) that keep ``targets``.

    Shards first: the fewest that work at all, from enough that each is busy at most half
    the peak minute (Redis is one thread), doubling up to 16 times that; then, for each number
    of detection processes, the fewest replicas by doubling then halving the step (more
    replicas never make it worse), up to 256.
    """
    rate = company.rate()
    redis_ms = (figures.redis_commands_per_turn + figures.redis_commands_per_ack) * (
        figures.redis_command_ms
    )
    fewest = max(1, math.ceil(rate * redis_ms / 1000 / 0.5))
    for shards in (fewest, 2 * fewest, 4 * fewest, 8 * fewest, 16 * fewest):
        found = _fewest_cores(
            figures, replace(base, shards=shards), company, targets, most_detectors
        )
        if found is not None:
            return found
    return None


def _fewest_cores(
    figures: Figures, base: Topology, company: Company, targets: Targets, most_detectors: int
) -> tuple[Topology, Outcome] | None:
    best: tuple[Topology, Outcome] | None = None
    for detectors in range(1, most_detectors + 1):

        def trial(replicas: int, detectors: int = detectors) -> tuple[Topology, Outcome] | None:
            topology = replace(base, replicas=replicas, detectors=detectors)
            outcome = run_company(figures, topology, company)
            return (topology, outcome) if meets(outcome, targets) else None

        low, high = 0, 1  # low fails (or is none), high is the next to try
        found = trial(high)
        while found is None and high < 256:
            low, high = high, high * 2
            found = trial(high)
        while found is not None and high - low > 1:
            middle = (low + high) // 2
            better = trial(middle)
            if better is not None:
                high, found = middle, better
            else:
                low = middle
        if found is not None and (best is None or _cores(found[0]) < _cores(best[0])):
            best = found
    return best


def _cores(topology: Topology) -> int:
    return topology.replicas * (1 + topology.detectors)
