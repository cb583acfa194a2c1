"""Test-wide setup: offline Presidio, a loopback-only network, and the shared fixtures."""

from __future__ import annotations

import ipaddress
import os
import socket

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""
for _name in (
    "VEILBOT_REDIS_URL",
    "VEILBOT_DATABASE_URL",
    "ANTHROPIC_API_KEY",
    "VEILBOT_ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "VEILBOT_ANTHROPIC_BASE_URL",
):
    os.environ.pop(_name, None)

pytest_plugins = [
    "tests.fixtures.services",
    "tests.fixtures.guardrail",
    "tests.fixtures.fakes",
    "tests.fixtures.audit_db",
]


class NetworkBlocked(RuntimeError):
    """A test tried to reach beyond the loopback interface."""


def _is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def _check(sock: socket.socket, address: object) -> None:
    if sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple):
        if not _is_loopback(str(address[0])):
            raise NetworkBlocked(f"tests may only connect to loopback, not {address[0]}")


def _guarded_connect(self: socket.socket, address: object) -> None:
    _check(self, address)
    return _real_connect(self, address)  # type: ignore[arg-type]


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    _check(self, address)
    return _real_connect_ex(self, address)  # type: ignore[arg-type]


def _guarded_getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
    if host is not None and not _is_loopback(host if isinstance(host, str) else host.decode()):
        raise NetworkBlocked(f"tests may only resolve loopback names, not {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
socket.getaddrinfo = _guarded_getaddrinfo
