"""Prometheus metrics of a running veilbot, served as ``GET /metrics``.

Part of the composition root: ``PrometheusMetrics`` is the ``Metrics`` port (``bot.core.ports``)
on ``prometheus_client``, with a registry of its own per ``App`` (never the process-wide
default), so two apps in one process (tests) do not share counts.

Labels are bounded enums only: platform, status, stage, entity type, model name, token kind.
Values that come from code or configuration (stages, entity types, model names) are still
checked against a strict pattern and replaced by ``other`` when they do not fit, so no label
can ever carry a user id, a thread id, a channel or text.

===========================================  =========  ===================================
name                                         type       labels
===========================================  =========  ===================================
``veilbot_turns_total``                      counter    platform, status
``veilbot_turn_stage_seconds``               histogram  stage (``total`` is the whole turn)
``veilbot_entities_redacted_total``          counter    entity_type
``veilbot_guardrail_failures_total``         counter    platform
``veilbot_placeholders_mangled_total``       counter    (model wrote a placeholder differently)
``veilbot_placeholders_unknown_total``       counter    (model made a placeholder up)
``veilbot_model_tokens_total``               counter    model, kind (input, output, cache_*)
``veilbot_model_cost_usd_total``             counter    model
``veilbot_duplicate_deliveries_total``       counter    platform
``veilbot_lock_wait_seconds``                histogram  (time to get a thread's lock)
``veilbot_lock_timeouts_total``              counter    (thread stayed busy: "thread busy")
``veilbot_audit_spool_records``              gauge      (records waiting for the database)
``veilbot_queue_events_total``               counter    kind (put, claimed, redelivered)
``veilbot_queue_entries``                    gauge      (queued events not answered yet)
===========================================  =========  ===================================
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Generic, TypeVar

from aiohttp import web
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from bot.core.types import AuditRecord, TurnStatus

PLATFORMS = frozenset({"slack", "discord", "console"})
STATUSES = frozenset(s.value for s in TurnStatus)
OTHER = "other"
_STAGE = re.compile(r"[a-z][a-z0-9_]{0,31}")
_ENTITY = re.compile(r"[A-Z][A-Z0-9_]{0,47}")
_MODEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@-]{0,99}")
_TOKEN_KINDS = ("input", "output", "cache_read", "cache_write")
QUEUE_KINDS = frozenset({"put", "claimed", "redelivered"})

STAGE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)
LOCK_BUCKETS = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30)


_Metric = TypeVar("_Metric", Counter, Histogram)


class _Children(Generic[_Metric]):
    """A metric's labelled children, cached.

    ``labels()`` takes a lock and checks its arguments on every call: without the cache that
    costs as much as all the rest of a turn's metrics.
    """

    def __init__(self, metric: _Metric) -> None:
        self._metric: _Metric = metric
        self._cache: dict[tuple[str, ...], _Metric] = {}

    def __call__(self, *values: str) -> _Metric:
        child = self._cache.get(values)
        if child is None:
            child = self._cache[values] = self._metric.labels(*values)
        return child


def _label(value: str, pattern: re.Pattern[str]) -> str:
    return value if pattern.fullmatch(value) else OTHER


def _platform(value: str) -> str:
    return value if value in PLATFORMS else OTHER


class PrometheusMetrics:
    """``Metrics`` on a ``prometheus_client`` registry of its own.

    Args:
        registry: where the metrics live; a new one by default.
    """

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry(auto_describe=True)
        reg = self.registry
        self._turns = _Children(
            Counter("veilbot_turns", "Finished turns.", ["platform", "status"], registry=reg)
        )
        self._stages = _Children(
            Histogram(
                "veilbot_turn_stage_seconds",
                "Time spent in each stage of a turn; stage 'total' is the whole turn.",
                ["stage"],
                buckets=STAGE_BUCKETS,
                registry=reg,
            )
        )
        self._entities = _Children(
            Counter(
                "veilbot_entities_redacted",
                "Personal data entities replaced by placeholders in user messages.",
                ["entity_type"],
                registry=reg,
            )
        )
        self._guardrail_failures = _Children(
            Counter(
                "veilbot_guardrail_failures",
                "Turns refused because the guardrail could not run (fail closed).",
                ["platform"],
                registry=reg,
            )
        )
        self._mangled = Counter(
            "veilbot_placeholders_mangled",
            "Placeholders the model wrote differently (restored anyway).",
            registry=reg,
        )
        self._unknown = Counter(
            "veilbot_placeholders_unknown",
            "Placeholders the model made up (shown neutrally).",
            registry=reg,
        )
        self._tokens = _Children(
            Counter(
                "veilbot_model_tokens", "Model tokens by kind.", ["model", "kind"], registry=reg
            )
        )
        self._cost = _Children(
            Counter("veilbot_model_cost_usd", "Model cost in US dollars.", ["model"], registry=reg)
        )
        self._duplicates = _Children(
            Counter(
                "veilbot_duplicate_deliveries",
                "Redelivered platform events dropped by the dedupe.",
                ["platform"],
                registry=reg,
            )
        )
        self._lock_wait = Histogram(
            "veilbot_lock_wait_seconds",
            "Time taken to get a thread's lock.",
            buckets=LOCK_BUCKETS,
            registry=reg,
        )
        self._lock_timeouts = Counter(
            "veilbot_lock_timeouts",
            "Lock waits that gave up because the thread stayed busy.",
            registry=reg,
        )
        self._spool = Gauge(
            "veilbot_audit_spool_records",
            "Audit records spooled to a file while the database is unreachable.",
            registry=reg,
        )
        self._queue = _Children(
            Counter(
                "veilbot_queue_events",
                "Turn queue events: put (queued, then acked), claimed (threads taken from a "
                "stopped replica), redelivered (entries begun again). Retries are counted "
                "as duplicate deliveries.",
                ["kind"],
                registry=reg,
            )
        )
        self._queue_depth = Gauge(
            "veilbot_queue_entries",
            "Queued platform events not answered yet, all replicas (sampled).",
            registry=reg,
        )

    def turn_finished(self, record: AuditRecord) -> None:
        """Count a finished turn from its audit record."""
        platform = _platform(record.platform)
        status = str(record.status)
        self._turns(platform, status if status in STATUSES else OTHER).inc()
        for stage, ms in record.latencies_ms.items():
            self._stages(_label(stage, _STAGE)).observe(max(ms, 0.0) / 1000)
        for entity, count in record.entity_counts.items():
            if count > 0:
                self._entities(_label(entity, _ENTITY)).inc(count)
        if record.status is TurnStatus.GUARDRAIL_ERROR:
            self._guardrail_failures(platform).inc()
        if record.mangled_placeholders > 0:
            self._mangled.inc(record.mangled_placeholders)
        if record.unknown_placeholders > 0:
            self._unknown.inc(record.unknown_placeholders)
        if record.model:
            self._model_use(record)

    def _model_use(self, record: AuditRecord) -> None:
        model = _label(record.model or "", _MODEL)
        used = (
            record.input_tokens,
            record.output_tokens,
            record.cache_read_tokens,
            record.cache_write_tokens,
        )
        for kind, tokens in zip(_TOKEN_KINDS, used, strict=True):
            if tokens > 0:
                self._tokens(model, kind).inc(tokens)
        if record.cost_usd:
            self._cost(model).inc(float(record.cost_usd))

    def duplicate_dropped(self, platform: str) -> None:
        """Count a redelivered event that was dropped."""
        self._duplicates(_platform(platform)).inc()

    def lock_waited(self, seconds: float, *, acquired: bool) -> None:
        """Observe a wait for a thread's lock; a timeout also counts as one."""
        self._lock_wait.observe(max(seconds, 0.0))
        if not acquired:
            self._lock_timeouts.inc()

    def queue_event(self, kind: str, count: int = 1) -> None:
        """Count turn queue events by kind."""
        self._queue(kind if kind in QUEUE_KINDS else OTHER).inc(count)

    def queue_depth(self, entries: int) -> None:
        """Set the queued entries gauge."""
        self._queue_depth.set(entries)

    def watch_spool(self, depth: Callable[[], int]) -> None:
        """Report ``depth()`` as the audit spool gauge at every scrape."""
        self._spool.set_function(lambda: float(depth()))

    def exposition(self) -> bytes:
        """The registry in the Prometheus text format."""
        return generate_latest(self.registry)


def add_metrics_route(app: web.Application, metrics: PrometheusMetrics) -> None:
    """Serve ``GET /metrics`` from ``metrics`` on an aiohttp application."""

    async def scrape(_request: web.Request) -> web.Response:
        response = web.Response(body=metrics.exposition())
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response

    app.router.add_get("/metrics", scrape)
