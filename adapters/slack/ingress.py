"""The gate in front of Slack's events endpoint: the signature first, then the body's shape.

slack-bolt parses a request's body before it checks the signature, and a malformed body or
a non-numeric ``X-Slack-Request-Timestamp`` raised out of it: 500 and a logged traceback per
request, for anyone who can reach the port. Here the raw bytes are checked first:

```
timestamp not ASCII digits, stale, or signature wrong -> 401 (HMAC over the raw bytes)
signed, but the body is not what Slack sends          -> 400 (JSON, or a form whose payload
                                                         is; an event's fields of the types
                                                         veilbot reads: adapters.slack.shapes)
otherwise                                             -> Admitted, with a JSON body parsed
```

A body is read as bolt will read it: as JSON when its type says so or when it starts with
``{`` (whatever its type says), else as a form, each of whose ``payload`` values (bolt reads
the last, a blank one too) must be a JSON object of the right shape.

The body is parsed once, here: the lean path (``EventsEndpoint``) acks a message event
from the parsed object without bolt; everything else goes on to bolt.

Refusals are logged by reason, never by content, at most once per ``interval`` seconds per
reason with the count of those not logged (a flood makes one line, not one per request).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from adapters.slack.shapes import well_formed
from bot.core.logsafe import ThrottledLog

logger = logging.getLogger(__name__)

_MAX_SKEW_SECONDS = 60 * 5
_STAMP = re.compile(r"[0-9]{1,12}")
"""ASCII digits only: ``str.isdigit`` also takes ``²`` and other digits ``int`` refuses."""


@dataclass(frozen=True, slots=True)
class Admitted:
    """A signed, well-formed request; ``json`` is its body parsed when it is JSON.

    Attributes:
        json: the JSON object of a JSON body (an Events API envelope), parsed once here;
            ``None`` for a form body (slash commands, interactivity): bolt parses those.
    """

    json: dict[str, Any] | None


class SlackGate:
    """Checks one request to the events endpoint before anything else reads it.

    Args:
        signing_secret: the app's signing secret.
    """

    def __init__(self, signing_secret: str) -> None:
        self._secret = signing_secret.encode("utf-8")
        self.refusals = ThrottledLog(logger, "slack request refused")

    def check(self, body: bytes, headers: Mapping[str, str]) -> Admitted | int:
        """The request admitted (with its JSON body parsed), or the status to refuse it with."""
        stamp = headers.get("X-Slack-Request-Timestamp", "")
        signature = headers.get("X-Slack-Signature", "")
        if not _STAMP.fullmatch(stamp) or not signature:
            return self._refused(401, "unsigned or without a numeric timestamp")
        if not self._signed(body, stamp, signature):
            return self._refused(401, "bad or stale signature")
        try:
            parsed = _parsed(body, headers.get("Content-Type", ""))
        except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            return self._refused(400, "signed but malformed body")
        if parsed is not None and not well_formed(parsed):
            return self._refused(400, "signed but malformed event")
        return Admitted(parsed)

    def _signed(self, body: bytes, stamp: str, signature: str) -> bool:
        """Slack's ``v0`` signature over the raw bytes: no decoding before it is checked."""
        if abs(time.time() - int(stamp)) > _MAX_SKEW_SECONDS:
            return False
        base = b"v0:" + stamp.encode("ascii") + b":" + body
        expected = "v0=" + hmac.new(self._secret, base, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected.encode("ascii"), signature.encode("utf-8", "replace"))

    def _refused(self, status: int, reason: str) -> int:
        self.refusals.warning(reason)
        return status


def _parsed(body: bytes, content_type: str) -> dict[str, Any] | None:
    """A JSON body's object, or ``None`` for a form (whose ``payload``, if any, is JSON).

    Raises:
        ValueError: the body is not what Slack sends (``UnicodeDecodeError`` is one).
    """
    text = body.decode("utf-8")
    if content_type.startswith("application/json") or text.startswith("{"):
        found = json.loads(text)
        if not isinstance(found, dict):
            raise ValueError("a JSON body that is not an object")
        return found
    form = parse_qs(text, keep_blank_values=True, strict_parsing=bool(text))
    for value in form.get("payload", ()):
        payload = json.loads(value)
        if not isinstance(payload, dict) or not well_formed(payload):
            raise ValueError("a form payload that is not a JSON object of the expected shape")
    return None
