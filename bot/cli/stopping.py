"""How ``veilbot run`` stops: SIGTERM and SIGINT ask for a drain, and a watchdog bounds it.

```
signal (SIGTERM from docker/systemd/Kubernetes, SIGINT from a terminal)
  ├─ before the event loop runs (the slow spaCy import): KeyboardInterrupt, and the signal
  │  is remembered, so a library that swallows the KeyboardInterrupt cannot make it lost
  ├─ while starting: start-up is cancelled (nothing to drain yet)
  ├─ while serving: ``requested`` is set; the service drains (``bot.service``)
  └─ a second signal: the drain is cut short (the main task is cancelled)
every first signal also starts a watchdog: whatever hangs (a swallowed cancellation, a
library thread that never ends), the process is gone ``grace`` seconds later.
```

Stop requests are an ``asyncio.Event``, not a task cancellation: a cancellation is delivered
once and any ``except CancelledError`` or ``asyncio.wait_for`` race on the way loses it (the
service then ignores SIGINT for good); an event stays set. Stdlib only: ``bot.cli.main``
installs the early handler before the heavy imports.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
WATCHDOG_MARGIN_SECONDS = 30.0
"""Time allowed after the drain for closing connections, the spool and the embedded Redis."""

_early: list[int] = []


def _early_handler(signum: int, _frame: FrameType | None) -> None:
    _early.append(signum)
    raise KeyboardInterrupt


@contextlib.contextmanager
def early_signals() -> Iterator[None]:
    """Until the event loop takes over, SIGTERM and SIGINT end start-up and are remembered.

    The previous handlers are back when the block ends.
    """
    _early.clear()
    previous = {sig: signal.signal(sig, _early_handler) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)


def stopped_early() -> bool:
    """Whether a stop signal arrived (so an interrupted start is a requested stop)."""
    return bool(_early)


def _force_exit(grace: float) -> None:
    log.error("shutdown: not finished %gs after the signal; exiting now", grace)
    logging.shutdown()
    os._exit(1)


class StopSignals:
    """SIGTERM/SIGINT handlers on the running loop, as a context manager.

    Args:
        grace_seconds: how long after the first signal the process may take to exit before
            the watchdog ends it (the drain timeout plus ``WATCHDOG_MARGIN_SECONDS``).
    """

    def __init__(self, *, grace_seconds: float) -> None:
        self.requested = asyncio.Event()
        """Set by the first signal: stop taking events and drain."""
        self.signal_name = ""
        self._grace = grace_seconds
        self._main: asyncio.Task[object] | None = None
        self._starting = True
        self._count = 0
        self.startup_cancelled = False
        """Whether the (only) signal came during start-up, which it cancelled."""
        self.watchdog: threading.Timer | None = None
        """Started by the first signal; it outlives this object on purpose."""

    def __enter__(self) -> StopSignals:
        loop = asyncio.get_running_loop()
        self._main = asyncio.current_task()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, self._on_signal, sig)
        if _early:  # a signal came during the imports and its KeyboardInterrupt was lost
            self._on_signal(_early[0])
        return self

    def __exit__(self, *exc_info: object) -> None:
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)

    def serving(self) -> None:
        """Start-up is over: from now on a signal asks for a drain instead of cancelling."""
        self._starting = False

    def _on_signal(self, signum: int) -> None:
        self._count += 1
        name = signal.Signals(signum).name
        if self._count > 1:
            self.startup_cancelled = False
            log.warning("shutdown: second %s; not waiting for the work in flight", name)
            self._cancel_main()
            return
        self.signal_name = name
        phase = "start-up cancelled" if self._starting else "taking no new events"
        log.info("shutdown: %s received; %s", name, phase)
        self.requested.set()
        self.watchdog = threading.Timer(self._grace, _force_exit, args=(self._grace,))
        self.watchdog.daemon = True
        self.watchdog.start()
        if self._starting:
            self.startup_cancelled = True
            self._cancel_main()

    def _cancel_main(self) -> None:
        if self._main is not None and not self._main.done():
            self._main.cancel()


@contextlib.contextmanager
def startup_cancel_is_a_stop(stopping: StopSignals) -> Iterator[None]:
    """A signal while starting cancels the task: whatever had started is stopped, a clean stop.

    Any other cancellation goes on up.
    """
    try:
        yield
    except asyncio.CancelledError:
        if not stopping.startup_cancelled:
            raise
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
