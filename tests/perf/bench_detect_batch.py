"""CPU per text of detection in worker processes under load, batched and one text per task.

32 callers at once, each sending its 10-60 word messages one after the other to a
``ProcessDetector`` with 2 workers. Prints, per mode, the CPU time per text of this process
(the event loop, the pool's threads, pickling) and of the workers (from ``/proc``, so Linux
only), and the wall time. CPU times are fairly independent of other load; wall time is not.

Run: ``.venv/bin/python -m tests.perf.bench_detect_batch [--per-caller 15]``
(prints figures; not a pytest test). With ``--callgrind``, under
``valgrind --tool=callgrind --instr-atstart=no``, one ``--mode`` runs with instrumentation on
around the callers only (workers untraced): callgrind's "Collected" divided by the texts is
this process's instructions per text, which no load on the machine moves.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import resource
import subprocess
import time

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from guardrails.detect import batching  # noqa: E402
from guardrails.detect.workers import ProcessDetector  # noqa: E402
from guardrails.engine import resolve_model  # noqa: E402
from tests.perf.bench_anonymize import message  # noqa: E402

CALLERS = 32
WORKERS = 2
_TICK = os.sysconf("SC_CLK_TCK")


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _workers_cpu() -> float:
    total = 0
    for child in multiprocessing.active_children():
        with open(f"/proc/{child.pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / _TICK


MODES = {  # name: (most texts per task, slots beyond the workers)
    "one text per task": (1, 1),
    "batched, workers+1 slots": (32, 1),
    "batched, workers slots": (32, 0),
}


def _callgrind(state: str) -> None:
    command = ["callgrind_control", "-i", state, str(os.getpid())]
    subprocess.run(command, check=True, capture_output=True)  # noqa: S603


async def _run(mode: str, per_caller: int, callgrind: bool) -> None:
    batch, extra_slots = MODES[mode]
    batching.MAX_BATCH_TEXTS = batch
    pool = ProcessDetector(resolve_model("auto"), None, 4000, WORKERS)
    batches = pool._batches  # noqa: SLF001  (the knobs under test)
    batches.slots = WORKERS + extra_slots
    sizes: list[int] = []
    send = batches._send  # noqa: SLF001

    def counted(items: list[batching.Item]) -> asyncio.Future[list[batching.Outcome]]:
        sizes.append(len(items))
        return send(items)

    batches._send = counted  # noqa: SLF001
    rng = random.Random(7)
    texts = [[message(rng) for _ in range(per_caller)] for _ in range(CALLERS)]

    async def caller(mine: list[str]) -> None:
        for text in mine:
            await pool.detect(text, "slack")

    try:
        await pool.start()
        if callgrind:
            _callgrind("on")
        wall, main, child = time.perf_counter(), _self_cpu(), _workers_cpu()
        await asyncio.gather(*(caller(mine) for mine in texts))
        wall, main = time.perf_counter() - wall, _self_cpu() - main
        if callgrind:
            _callgrind("off")
        child = _workers_cpu() - child
    finally:
        await pool.close()
    n = CALLERS * per_caller
    print(
        f"{mode:<26} n={n} main {main / n * 1000:5.2f} ms/text  "
        f"workers {child / n * 1000:5.2f} ms/text  wall {wall:5.1f} s ({n / wall:5.0f} texts/s)"
        f"  {(n + WORKERS) / len(sizes):4.1f} texts/task"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-caller", type=int, default=15, help="texts each caller sends")
    parser.add_argument("--mode", choices=list(MODES), action="append", help="default: all")
    parser.add_argument("--callgrind", action="store_true", help="toggle callgrind around runs")
    args = parser.parse_args()
    for mode in args.mode or list(MODES):
        await _run(mode, args.per_caller, args.callgrind)


if __name__ == "__main__":
    asyncio.run(main())
