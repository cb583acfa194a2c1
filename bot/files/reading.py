"""What runs in a reader process (``bot.files.confine``): its limits, the task, one message back.

Before the task touches the file the process makes a process group of its own (Tesseract, which
it runs, goes with it), silences warnings and log records (a parser's message can quote the
file), drops the service's secrets from its environment (nothing it runs needs them), and sets
its limits: ``RLIMIT_CPU``, and on Linux ``RLIMIT_AS`` (its address space now plus the memory
it may take) and a ``SIGKILL`` when its parent, the fork server, ends with the service.

It sends back exactly one outcome: the task's result, the task's ``FileRejected`` (message and
reason), ``memory`` when it ran out (a ``MemoryError``, or any failure at its ceiling: libxml2
says "unknown error"), or the type of any other failure, never its message.
"""

from __future__ import annotations

import logging
import math
import os
import re
import resource
import signal
import sys
import warnings
from collections.abc import Callable
from multiprocessing.connection import Connection

from bot.core.errors import FileRejected

Outcome = tuple[str, object]
"""``("done", result)``, ``("rejected", (message, reason))``, ``("memory", None)`` or
``("failed", type name)``."""

_NEAR_CEILING = 8 * 1024 * 1024
"""How close to its memory ceiling a failed reader must have come for the failure to be told
as running out of memory: libraries say so in their own ways, or not at all."""
_SECRET = re.compile(
    r"^(VEILBOT_|ANTHROPIC_|OPENAI_|AWS_|GOOGLE_|CLOUD_ML_|SLACK_|DISCORD_)|TOKEN|SECRET|PASSWORD|KEY",
    re.IGNORECASE,
)
"""Environment variables a reader has no use for, and a parser's flaw must not reach."""
_PR_SET_PDEATHSIG = 1


def run_task(
    send: Connection,
    task: Callable[..., object],
    args: tuple[object, ...],
    kwargs: dict[str, object],
    memory: int,
    seconds: float,
) -> None:
    """Confine this process, run ``task(*args, **kwargs)``, send its one outcome."""
    outcome: Outcome
    ceiling: int | None = None
    try:
        ceiling = _confine(memory, seconds)
        outcome = ("done", task(*args, **kwargs))
    except FileRejected as exc:
        outcome = ("rejected", (str(exc), exc.reason))
    except MemoryError:
        outcome = ("memory", None)
    except Exception as exc:  # told by type only: a parser's message can quote the file
        outcome = ("failed", type(exc).__name__)
    if outcome[0] != "done" and ceiling is not None and _peak() >= ceiling - _NEAR_CEILING:
        # A library that ran out (libxml2 says "unknown error") failed at the ceiling.
        outcome = ("memory", None)
    try:
        send.send(outcome)
    except MemoryError:
        send.send(("memory", None))  # the result itself did not fit
    send.close()


def _confine(memory: int, seconds: float) -> int | None:
    """Limit this process (and what it runs) before the task touches the file.

    Returns:
        the address-space ceiling set, in bytes (``None`` off Linux: no memory limit there).
    """
    os.setpgid(0, 0)
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    for name in [name for name in os.environ if _SECRET.search(name)]:
        del os.environ[name]
    cpu = max(1, math.ceil(seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU would dump core
    if sys.platform != "linux":
        return None
    _killed_with_parent()
    ceiling = _address_space() + memory
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))
    return ceiling


def _peak() -> int:
    """The largest address space this process had, in bytes (``VmPeak``)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmPeak:"):
                return int(line.split()[1]) * 1024
    return 0


def _address_space() -> int:
    """This process's address space now, in bytes (``/proc/self/statm``: pages)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[0])
    return pages * os.sysconf("SC_PAGE_SIZE")


def _killed_with_parent() -> None:
    """The kernel kills this process when its parent (the fork server) ends."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
