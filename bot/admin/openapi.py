"""The OpenAPI 3.1 document of the HTTP admin API (served at ``/admin/openapi.json``)."""

from __future__ import annotations

from typing import Any

from bot.audit.export import EXPORT_FIELDS, PII_NOTICE
from bot.audit.types import GROUPS

_ID = {"type": "string", "pattern": "^[A-Za-z0-9_.:@+=-]{1,255}$"}
_STATUS = [
    "ok",
    "guardrail_error",
    "model_error",
    "store_error",
    "rejected_input",
    "internal_error",
    "refused",
    "rate_limited",
    "over_budget",
    "dropped",
    "forked",
]


def _q(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": schema,
        "description": description,
    }


FILTERS: list[dict[str, Any]] = [
    _q("thread_id", _ID, "Exact thread id, e.g. slack:T1:C1:1700000000.0001"),
    _q("user_id", _ID, "Exact platform user id (U123, a Discord snowflake)"),
    _q("platform", {"type": "string", "enum": ["slack", "discord", "console"]}, "Platform"),
    _q("workspace", _ID, "Slack team id or Discord guild id"),
    _q("channel", _ID, "Channel id"),
    _q("status", {"type": "string", "enum": _STATUS}, "How the turn ended"),
    _q("since", {"type": "string"}, "Started at or after: ISO 8601 (UTC if no offset) or 7d/12h"),
    _q("until", {"type": "string"}, "Started before: ISO 8601 or a duration ago"),
    {
        "name": "meta.{key}",
        "in": "query",
        "required": False,
        "schema": {"type": "string"},
        "description": "Exact top-level metadata value (string); key [A-Za-z0-9_-]+; repeatable "
        "with different keys (AND)",
    },
]
_RUN = {
    "type": "object",
    "description": PII_NOTICE,
    "properties": {name: {} for name in EXPORT_FIELDS},
}
_ERROR = {"type": "object", "properties": {"error": {"type": "string"}}}


def _responses(ok: dict[str, Any]) -> dict[str, Any]:
    err = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    return {
        "200": ok,
        "400": {"description": "Malformed filter, limit or cursor", **err},
        "401": {"description": "No bearer token, or an unknown one", **err},
        "403": {
            "description": "The token lacks the admin scope, or the filter names a workspace "
            "the token is not limited to",
            **err,
        },
        "503": {"description": "The audit store is unavailable", **err},
    }


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_PAGE = {
    "type": "object",
    "properties": {
        "runs": {"type": "array", "items": {"$ref": "#/components/schemas/Run"}},
        "next_cursor": {"type": ["string", "null"]},
    },
}
_STATS = {
    "type": "object",
    "properties": {
        "by": {"type": "string"},
        "runs": {"type": "integer"},
        "groups": {"type": "array", "items": {"type": "object"}},
    },
}
_PAGING = [
    _q("limit", {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}, "Page size"),
    _q("cursor", {"type": "string"}, "next_cursor of the previous page (opaque)"),
]


def _export(media: str) -> dict[str, Any]:
    return {
        "get": {
            "summary": "Stream every matching run (first line: export metadata)",
            "parameters": FILTERS,
            "responses": _responses(
                {"description": "The export, streamed", "content": {media: {}}}
            ),
        }
    }


OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "veilbot admin API", "version": "1", "description": PII_NOTICE},
    "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        "schemas": {"Run": _RUN, "Error": _ERROR},
    },
    "security": [{"bearer": []}],
    "paths": {
        "/admin/runs": {
            "get": {
                "summary": "Runs, newest first (keyset pages)",
                "parameters": [*FILTERS, *_PAGING],
                "responses": _responses(_json(_PAGE, "One page")),
            }
        },
        "/admin/runs/{run_id}": {
            "get": {
                "summary": "One run",
                "parameters": [
                    {"name": "run_id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    **_responses(_json({"$ref": "#/components/schemas/Run"}, "The run")),
                    "404": {"description": "No such run"},
                },
            }
        },
        "/admin/stats": {
            "get": {
                "summary": "Turns, tokens, cost and entity counts per group",
                "parameters": [
                    *FILTERS,
                    _q(
                        "by",
                        {
                            "type": "string",
                            "enum": list(GROUPS),
                            "default": "day",
                        },
                        "Grouping",
                    ),
                ],
                "responses": _responses(_json(_STATS, "Roll-up")),
            }
        },
        "/admin/export.jsonl": _export("application/x-ndjson"),
        "/admin/export.csv": _export("text/csv"),
        "/admin/openapi.json": {
            "get": {"summary": "This document", "responses": _responses({"description": "OpenAPI"})}
        },
        "/healthz": {
            "get": {
                "summary": "Liveness",
                "security": [],
                "responses": {"200": {"description": "The process serves"}},
            }
        },
        "/readyz": {
            "get": {
                "summary": "Readiness: Redis, database, guardrail (warm); start-up timings",
                "security": [],
                "responses": {
                    "200": {"description": "Ready"},
                    "503": {"description": "A dependency is down"},
                },
            }
        },
    },
}
