"""Arrivals: a burst as ``bench_slack`` sends it, and a Poisson stream."""

from __future__ import annotations

import random

from tests.perf.capacity.model import Deployment


def burst(deployment: Deployment, threads: int, per_thread: int) -> None:
    """``threads`` senders at once, each sending its thread's next event once one is acked."""

    def send(thread: int, left: int) -> None:
        if left == 0:
            return
        now = deployment.calendar.now
        deployment.arrive(now, thread, lambda: send(thread, left - 1))

    for thread in range(threads):
        send(thread, per_thread)


def poisson(
    deployment: Deployment, rate: float, seconds: float, threads: int, rng: random.Random
) -> int:
    """Events at ``rate`` per second for ``seconds``, each in one of ``threads`` threads."""
    now, count = rng.expovariate(rate), 0
    while now < seconds:
        deployment.arrive(now, rng.randrange(threads))
        now += rng.expovariate(rate)
        count += 1
    return count


def at_once(deployment: Deployment, events: int, when: float, threads: int) -> None:
    """``events`` delivered at the same moment, each in a thread of its own."""
    for n in range(events):
        deployment.arrive(when, threads + n)
