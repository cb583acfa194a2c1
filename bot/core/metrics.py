"""The default ``Metrics``: counts nothing.

Components take a ``Metrics`` (``bot.core.ports``) and default to ``NO_METRICS``, so the core,
the stores and the tests that build them run without a metrics backend; the composition root
passes the Prometheus one (``bot.metrics``).
"""

from __future__ import annotations

from bot.core.types import AuditRecord


class NoMetrics:
    """A ``Metrics`` that drops every observation."""

    def turn_finished(self, record: AuditRecord) -> None:
        """Drop it."""

    def duplicate_dropped(self, platform: str) -> None:
        """Drop it."""

    def lock_waited(self, seconds: float, *, acquired: bool) -> None:
        """Drop it."""

    def queue_event(self, kind: str, count: int = 1) -> None:
        """Drop it."""

    def queue_depth(self, entries: int) -> None:
        """Drop it."""


NO_METRICS = NoMetrics()
