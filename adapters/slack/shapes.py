"""The shape of a signed Events API body, checked once at the boundary.

A valid signature says the body came from Slack, not that every field has the type the
translation in ``adapters.slack.events`` (or slack-bolt, which reads the user, team, channel
and enterprise of any payload) expects. A body whose fields have other types (an event
without ``channel``, a ``subtype`` that is a list, ``authorizations`` of strings, a
``previous_message`` that is a string, a button's ``user`` that is a number) is refused here
with 400 instead of failing later in the handler. Only the fields read are checked; any other
field may hold anything. A message's ``files`` are objects whose ``size`` is a whole number
of bytes (not ``"abc"``, a list, or ``1e400``, which JSON reads as infinity).
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
_ID = (str, dict)
_BOLT_FIELDS: dict[str, tuple[type, ...]] = {
    "user": _ID,
    "team": _ID,
    "enterprise": _ID,
    "channel": _ID,
    "authorizations": (list,),
    "actions": (list,),
    "is_ext_shared_channel": (bool,),
    "event": (dict,),
    "message": (dict,),
    "previous_message": (dict,),
    "item": (dict,),
    "assistant_thread": (dict,),
    "view": (dict,),
    "container": (dict,),
}
"""What slack-bolt reads from any payload (and the objects inside it) to build its context."""
_BOLT_IDS: dict[str, tuple[type, ...]] = {"id": _STR, "team_id": _STR, "enterprise_id": _STR}
_BOLT_NESTED = ("event", "message", "previous_message", "item", "assistant_thread", "view",
                "container")  # fmt: skip
_NESTED = ("previous_message", "message")
"""Message objects inside an event (``message_deleted``, ``message_changed``)."""
_MESSAGE_EVENTS = frozenset({"message", "app_mention"})
_FILE_FIELDS: dict[str, tuple[type, ...]] = {
    "id": _STR,
    "name": _STR,
    "url_private": _STR,
    "url_private_download": _STR,
    "file_access": _STR,
    "mode": _STR,
}
"""What ``adapters.slack.events.files_of`` reads of a shared file (and its ``size``)."""


def _typed(obj: dict[str, Any], fields: dict[str, tuple[type, ...]]) -> bool:
    """Each known field absent, ``None``, or of its type."""
    return all(
        obj.get(name) is None or isinstance(obj[name], kinds) for name, kinds in fields.items()
    )


def _files_ok(message: dict[str, Any]) -> bool:
    """Each shared file an object of the read fields' types, its ``size`` a byte count."""
    for item in message.get("files") or ():
        if not isinstance(item, dict) or not _typed(item, _FILE_FIELDS):
            return False
        size = item.get("size")
        if size is not None and (type(size) is not int or size < 0):
            return False
    return True


def _event_ok(event: dict[str, Any]) -> bool:
    """A message event's fields (other events, ``channel_created`` among them, vary)."""
    kind = event.get("type")
    if not isinstance(kind, str):
        return kind is None  # a list or a number would fail every "in" test later
    if kind not in _MESSAGE_EVENTS:
        return True
    if not _typed(event, _EVENT_FIELDS) or not _files_ok(event):
        return False
    for name in _NESTED:
        inner = event.get(name)
        if inner is not None and not (
            isinstance(inner, dict) and _typed(inner, _MESSAGE_FIELDS) and _files_ok(inner)
        ):
            return False
    return isinstance(event.get("channel"), str) and isinstance(event.get("ts"), str)


def bolt_readable(obj: dict[str, Any], depth: int = 0) -> bool:
    """Whether slack-bolt can read the context of a payload (an envelope, a button's payload).

    Its user, team, enterprise and channel are ids or objects with string ids; its
    ``authorizations`` and ``actions`` lists of objects; the objects it looks into, objects.
    """
    if depth > 4 or not _typed(obj, _BOLT_FIELDS):
        return False
    for name in ("user", "team", "enterprise", "channel"):
        inner = obj.get(name)
        if isinstance(inner, dict) and not _typed(inner, _BOLT_IDS):
            return False
    for name in ("authorizations", "actions"):
        items = obj.get(name) or []
        if not all(isinstance(i, dict) and bolt_readable(i, depth + 1) for i in items):
            return False
    return all(bolt_readable(obj[n], depth + 1) for n in _BOLT_NESTED if obj.get(n) is not None)


def well_formed(body: dict[str, Any]) -> bool:
    """Whether a signed JSON body (or a form's ``payload``) has the shapes that are read.

    Every body must be readable by slack-bolt (``bolt_readable``); an ``event_callback``'s
    envelope and message event must also have the fields veilbot translates.
    """
    if not bolt_readable(body):
        return False
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
