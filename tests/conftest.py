"""Test-wide setup: offline Presidio, a loopback-only network, and the shared fixtures."""

from __future__ import annotations

import ipaddress
import os
import socket

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""
_FOREIGN = ("VEILBOT_", "ANTHROPIC_", "AWS_", "OPENAI_", "CLOUD_ML_")
for _name in list(os.environ):
    # The machine's own settings and cloud credentials must not steer a test (nor reach
    # a real provider): veilbot's (but the tests' own), and what the model SDKs read.
    if _name.startswith("VEILBOT_TEST_"):
        continue
    if _name.startswith(_FOREIGN) or _name in (
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_CLOUD_PROJECT",
    ):
        os.environ.pop(_name)
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"  # boto3 never asks an instance for a role
os.environ["AWS_CONFIG_FILE"] = os.environ["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull

pytest_plugins = [
    "tests.fixtures.services",
    "tests.fixtures.guardrail",
    "tests.fixtures.fakes",
    "tests.fixtures.providers",
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
