"""The runs filter of a console URL, so a view can be shared by its address.

The same parameters as the JSON API (``thread_id``, ``user_id``, ``platform``, ``workspace``,
``channel``, ``status``, ``since``, ``until``, ``meta.KEY``) plus ``meta``, the form's one
text field of ``key=value`` pairs, and ``thread`` and ``user`` as short names for
``thread_id`` and ``user_id``. Empty fields (an unfilled form) are ignored. A malformed value
is reported against its field (``field_errors``), so the form can be shown again with the
message beside it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from urllib.parse import urlencode

from bot.admin.api import filter_from_query
from bot.audit.types import FilterRejected, RunFilter, parse_meta_pairs

FILTER_FIELDS = (
    "thread_id",
    "user_id",
    "platform",
    "workspace",
    "channel",
    "status",
    "since",
    "until",
)
_PAGE_PARAMS = ("cursor", "limit", "gzip", "format")
ALIASES = {"thread": "thread_id", "user": "user_id"}
"""Short names a link may use (``/admin/?thread=slack:T1:C1:1700000000.0001``)."""


def canonical(query: Mapping[str, str]) -> dict[str, str]:
    """The query with short names (``thread``, ``user``) under their full names."""
    out: dict[str, str] = {}
    for key, value in query.items():
        name = ALIASES.get(key, key)
        if value.strip() or name not in out:
            out[name] = value
    return out


def console_filter(query: Mapping[str, str], *, keep: tuple[str, ...] = ()) -> RunFilter:
    """The filter of a console request's query string.

    Args:
        query: the request's query.
        keep: extra parameters this page takes (ignored here).

    Raises:
        FilterRejected: an unknown parameter or a malformed value.
    """
    values = {k: v.strip() for k, v in canonical(query).items() if v.strip() and k not in keep}
    pairs = values.pop("meta", "")
    run_filter = filter_from_query(values, lambda k: [values[k]])
    if pairs:
        extra = parse_meta_pairs(pairs.replace(",", " ").split())
        run_filter = dataclasses.replace(run_filter, metadata={**run_filter.metadata, **extra})
    return run_filter


def form_values(query: Mapping[str, str]) -> dict[str, str]:
    """The filter form's fields as the browser sent them (to fill the form again)."""
    query = canonical(query)
    values = {k: query.get(k, "") for k in FILTER_FIELDS}
    metas = [f"{k[5:]}={v}" for k, v in query.items() if k.startswith("meta.")]
    values["meta"] = " ".join([query.get("meta", ""), *metas]).strip()
    return values


def filter_query(query: Mapping[str, str], **extra: str) -> str:
    """The filter part of a query string (empty fields dropped), with ``extra`` parameters."""
    kept = [(k, v) for k, v in canonical(query).items() if v.strip() and k not in _PAGE_PARAMS]
    kept += [(k, v) for k, v in extra.items() if v]
    return urlencode(kept)


def field_errors(query: Mapping[str, str], *, keep: tuple[str, ...] = ()) -> dict[str, str]:
    """Why the filter of ``query`` is refused, by form field (``""``: not one field's fault).

    Each filled field is checked alone, so every bad field gets its own message.
    """
    values = {k: v for k, v in canonical(query).items() if v.strip() and k not in keep}
    errors: dict[str, str] = {}
    for name, value in values.items():
        field = "meta" if name.startswith("meta.") else name
        try:
            console_filter({name: value})
        except FilterRejected as exc:
            errors.setdefault(field if field in (*FILTER_FIELDS, "meta") else "", str(exc))
    if not errors:
        try:
            console_filter(query, keep=keep)
        except FilterRejected as exc:
            errors[""] = str(exc)
    return errors
