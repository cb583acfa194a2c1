"""AWS wire details the fake Bedrock needs, written from AWS's specifications.

- ``verify_sigv4``: checks a Signature Version 4 ``Authorization`` header the way AWS does
  (canonical request, string to sign, derived signing key), independently of botocore, so a
  test fails if the SDK signs something other than what it sends.
- ``event_message``: one message of the ``application/vnd.amazon.eventstream`` framing
  (prelude with lengths and CRC32, typed headers, payload, message CRC32).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qsl, quote

ALGORITHM = "AWS4-HMAC-SHA256"
_AUTH_RE = re.compile(
    r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/,]+)/(?P<scope>[^,]+), ?"
    r"SignedHeaders=(?P<signed>[^,]+), ?Signature=(?P<signature>[0-9a-f]{64})"
)
_SPACES = re.compile(r"\s+")
MAX_CLOCK_SKEW = timedelta(minutes=5)


@dataclass(frozen=True)
class AwsCredentials:
    """Static test credentials the fake accepts."""

    access_key: str = "AKIAVEILBOTTEST00001"
    secret_key: str = "veilbot/test/secret/key/0123456789abcdefgh"
    session_token: str | None = None


class SignatureRejected(Exception):
    """Why a request's signature was refused, as an AWS error name and message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def _uri_encode(text: str) -> str:
    return quote(text, safe="-_.~")


def canonical_request(
    method: str,
    raw_path: str,
    query: str,
    headers: Mapping[str, str],
    signed: list[str],
    body: bytes,
) -> str:
    """The canonical request of SigV4 (for services other than S3: the path is encoded again)."""
    path = quote(raw_path or "/", safe="/~")
    pairs = sorted((_uri_encode(k), _uri_encode(v)) for k, v in parse_qsl(query, True))
    lowered = {k.lower(): v for k, v in headers.items()}
    lines = [f"{name}:{_SPACES.sub(' ', lowered.get(name, '').strip())}\n" for name in signed]
    return "\n".join(
        [
            method.upper(),
            path,
            "&".join(f"{k}={v}" for k, v in pairs),
            "".join(lines),
            ";".join(signed),
            hashlib.sha256(body).hexdigest(),
        ]
    )


def verify_sigv4(
    *,
    method: str,
    raw_path: str,
    query: str,
    headers: Mapping[str, str],
    body: bytes,
    credentials: AwsCredentials,
    region: str,
    service: str,
    now: datetime | None = None,
) -> None:
    """Check a SigV4-signed request.

    Raises:
        SignatureRejected: with AWS's error name: ``MissingAuthenticationTokenException``,
            ``IncompleteSignatureException``, ``UnrecognizedClientException``,
            ``InvalidSignatureException`` or ``ExpiredTokenException``.
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    match = _AUTH_RE.fullmatch(lowered.get("authorization", ""))
    if match is None:
        raise SignatureRejected(
            "MissingAuthenticationTokenException", "Missing Authentication Token"
        )
    signed = match.group("signed").split(";")
    amz_date = lowered.get("x-amz-date", "")
    date, scope_region, scope_service, terminal = (match.group("scope").split("/") + [""] * 4)[:4]
    if "host" not in signed or "x-amz-date" not in signed or signed != sorted(signed):
        raise SignatureRejected(
            "IncompleteSignatureException", "host and x-amz-date must be signed"
        )
    if match.group("key") != credentials.access_key:
        raise SignatureRejected(
            "UnrecognizedClientException", "The security token included in the request is invalid."
        )
    if credentials.session_token and (
        "x-amz-security-token" not in signed
        or lowered.get("x-amz-security-token") != credentials.session_token
    ):
        raise SignatureRejected(
            "UnrecognizedClientException", "The security token included in the request is invalid."
        )
    when = datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    if abs((now or datetime.now(UTC)) - when) > MAX_CLOCK_SKEW:
        raise SignatureRejected("InvalidSignatureException", "Signature expired")
    if (date, scope_region, scope_service, terminal) != (
        amz_date[:8],
        region,
        service,
        "aws4_request",
    ):
        raise SignatureRejected(
            "InvalidSignatureException", "Credential should be scoped correctly"
        )
    request = canonical_request(method, raw_path, query, headers, signed, body)
    to_sign = "\n".join(
        [ALGORITHM, amz_date, match.group("scope"), hashlib.sha256(request.encode()).hexdigest()]
    )
    key = _hmac(f"AWS4{credentials.secret_key}".encode(), date)
    for part in (region, service, "aws4_request"):
        key = _hmac(key, part)
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, match.group("signature")):
        raise SignatureRejected(
            "InvalidSignatureException",
            "The request signature we calculated does not match the signature you provided.",
        )


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return (
        struct.pack("!B", len(raw_name))
        + raw_name
        + struct.pack("!BH", 7, len(raw_value))  # type 7: string
        + raw_value
    )


def event_message(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One event-stream message: prelude, headers, payload and the two CRC32 checksums."""
    encoded = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack("!II", total, len(encoded))
    prelude += struct.pack("!I", zlib.crc32(prelude))
    message = prelude + encoded + payload
    return message + struct.pack("!I", zlib.crc32(message))
