"""The shape of a signed Events API body, checked once at the boundary.

A valid signature says the body came from Slack, not that every field has the type the
translation in ``adapters.slack.events`` reads. A body whose fields have other types (an event
without ``channel``, a ``subtype`` that is a list, ``authorizations`` of strings, a
``previous_message`` that is a string) is refused here with 400 instead of failing later in
the handler. Only the fields veilbot reads are checked; any other field may hold anything.
"""

from __future__ import annotations

from typing import Any

_STR = (str,)
_MESSAGE_FIELDS: dict[str, tuple[type, ...]] = {
    "type": _STR,
    "subtype": _STR,
    "user": _STR,
    "text": _STR,
    "ts": _STR,
    "thread_ts": _STR,
    "bot_id": _STR,
    "bot_profile": (dict,),
    "files": (list,),
    "hidden": (bool,),
}
_EVENT_FIELDS: dict[str, tuple[type, ...]] = {
    **_MESSAGE_FIELDS,
    "channel": _STR,
    "channel_type": _STR,
    "team": _STR,
    "deleted_ts": _STR,
    "event_ts": _STR,
    "assistant_thread": (dict,),
}
_ENVELOPE_FIELDS: dict[str, tuple[type, ...]] = {
    "type": _STR,
    "team_id": _STR,
    "event_id": _STR,
    "team": (str, dict),
    "authorizations": (list,),
    "event": (dict,),
}
_NESTED = ("previous_message", "message")
"""Message objects inside an event (``message_deleted``, ``message_changed``)."""
_MESSAGE_EVENTS = frozenset({"message", "app_mention"})


def _typed(obj: dict[str, Any], fields: dict[str, tuple[type, ...]]) -> bool:
    """Each known field absent, ``None``, or of its type."""
    return all(
        obj.get(name) is None or isinstance(obj[name], kinds) for name, kinds in fields.items()
    )


def _event_ok(event: dict[str, Any]) -> bool:
    if not _typed(event, _EVENT_FIELDS):
        return False
    for name in _NESTED:
        inner = event.get(name)
        if inner is not None and not (isinstance(inner, dict) and _typed(inner, _MESSAGE_FIELDS)):
            return False
    if event.get("type") in _MESSAGE_EVENTS:
        return isinstance(event.get("channel"), str) and isinstance(event.get("ts"), str)
    return True


def well_formed(body: dict[str, Any]) -> bool:
    """Whether an Events API body has the shapes veilbot reads (other bodies: ``True``).

    Only ``event_callback`` bodies are checked; URL verification and app rate-limit notices
    are left to bolt.
    """
    if body.get("type") != "event_callback":
        return True
    if not _typed(body, _ENVELOPE_FIELDS) or not isinstance(body.get("event"), dict):
        return False
    team = body.get("team")
    if isinstance(team, dict) and not _typed(team, {"id": _STR}):
        return False
    grants = body.get("authorizations") or []
    if not all(
        isinstance(g, dict) and _typed(g, {"team_id": _STR, "user_id": _STR}) for g in grants
    ):
        return False
    return _event_ok(body["event"])
