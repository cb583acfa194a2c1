"""``python -m tests.perf.capacity [--validate] [--members 10000,100000,1000000]``."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from tests.perf.capacity.figures import SITTINGS, Figures
from tests.perf.capacity.model import Topology
from tests.perf.capacity.runs import Company, Targets, pct, run_burst, size


@dataclass(frozen=True)
class Measured:
    """A ``bench_slack`` run on this machine (validation only; the model never reads it)."""

    name: str
    topology: Topology
    threads: int
    ack_p50_ms: tuple[float, ...]
    ack_p99_ms: tuple[float, ...]
    turns_per_s: tuple[float, ...]
    load: str
    figures: Figures = field(default_factory=Figures)
    """The service times measured in the same sitting (the machine's speed drifts)."""
    others: tuple[float, ...] | None = None
    """Other work's runnable threads to predict with (``--others`` when ``None``)."""


MEASURED = [
    Measured(
        "bench_slack (all in one, 1 s model)",
        Topology(cores=2, client_on_loop=True, model_s=1.0, chat=False),
        100,
        (38.7, 50.5),
        (76.3, 100.5),
        (18.5, 18.5),
        "4.0-4.8",
    ),
    Measured(
        "bench_slack --model-delay 0 --guardrail-workers 2 --threads 200 --replicas 1",
        Topology(detectors=2, cores=2, model_s=0.0, chat=False),
        200,
        (39.9, 106.0),
        (82.2, 175.9),
        (72.1, 58.5),
        "4.1-4.8",
    ),
    *(
        Measured(
            f"the same at 19:0{minute} UTC, after the detection stall; the benchmark's processes "
            f"had {cores} of the 2 cores",
            Topology(detectors=2, cores=cores, model_s=0.0, chat=False, fakes=True),
            200,
            (p50,),
            (p99,),
            (rate,),
            load,
            SITTINGS["2026-12-02 19:01"],
            (0.0,),
        )
        for minute, cores, p50, p99, rate, load in (
            (2, 0.95, 217.3, 350.5, 55.1, "7.4-7.6"),
            (4, 0.89, 254.0, 452.3, 48.1, "7.8-8.0"),
        )
    ),
]
"""Two runs each, 2 cores, the load average (1 minute) beside them: 08:51-08:54 UTC; then the
throughput run in a later sitting (``SITTINGS``), with the cores its processes had (``bench_slack``
prints them) as the cores it ran on: the rest of the machine was other work's."""


def _row(name: str, predicted: float, measured: tuple[float, ...]) -> str:
    low, high = min(measured), max(measured)
    mid = (low + high) / 2
    return (
        f"  {name:10} predicted {predicted:7.1f}   measured {low:.1f}-{high:.1f}"
        f"   ratio to their mean {predicted / mid:.2f}"
    )


def validate(others: tuple[float, ...]) -> None:
    """Predicted against measured, for this machine's ``bench_slack`` runs."""
    for run in MEASURED:
        print(f"{run.name} (load {run.load} on 2 cores)")
        for other in run.others if run.others is not None else others:
            topology = Topology(**{**run.topology.__dict__, "others": other})
            outcome = run_burst(run.figures, topology, run.threads, 5)
            print(f" with {other:g} runnable thread(s) of other work on the cores:")
            print(_row("ack p50", pct(outcome.acks, 50) * 1000, run.ack_p50_ms))
            print(_row("ack p99", pct(outcome.acks, 99) * 1000, run.ack_p99_ms))
            print(_row("turns/s", outcome.throughput(), run.turns_per_s))


def predict(figures: Figures, members: list[int], targets: Targets, burst_share: float) -> None:
    """The smallest deployment per company size."""
    base = Topology(model_s=1.0, audit_ms=figures.audit_postgres_ms, chat=True)
    print(
        f"targets: ack p99 <= {targets.ack_p99_s * 1000:.0f} ms, answer delay p95 "
        f"(model time excluded) <= {targets.answer_p95_s * 1000:.0f} ms"
    )
    print(
        "| members | events/s (peak minute) | burst | replicas | detection processes "
        "each | Redis shards | ack p50 / p99 ms | answer delay p50 / p95 ms |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for count in members:
        company = Company(count, burst_share=burst_share)
        found = size(figures, base, company, targets)
        burst = int(count * company.burst_share)
        if found is None:
            print(f"| {count:,} | {company.rate():.1f} | {burst} | none up to 256 replicas |")
            continue
        topo, out = found
        print(
            f"| {count:,} | {company.rate():.1f} | {burst} | {topo.replicas} | "
            f"{topo.detectors} | {topo.shards} | {pct(out.acks, 50) * 1000:.1f} / "
            f"{pct(out.acks, 99) * 1000:.1f} | {pct(out.answers, 50) * 1000:.0f} / "
            f"{pct(out.answers, 95) * 1000:.0f} |"
        )


def main() -> None:
    """Parse the arguments; validate or predict."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip())
    parser.add_argument("--validate", action="store_true")
    parser.add_argument("--members", default="10000,100000,1000000")
    parser.add_argument("--others", default="0,1", help="other work's runnable threads")
    parser.add_argument(
        "--burst-share", type=float, default=0.001, help="events at one moment, per member"
    )
    args = parser.parse_args()
    figures = Figures()
    if args.validate:
        validate(tuple(float(x) for x in args.others.split(",")))
        return
    members = [int(x) for x in args.members.split(",")]
    predict(figures, members, Targets(), args.burst_share)


if __name__ == "__main__":
    main()
