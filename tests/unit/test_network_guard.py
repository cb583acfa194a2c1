import socket

import pytest

from tests.conftest import NetworkBlocked


def test_connecting_beyond_loopback_fails():
    with pytest.raises(NetworkBlocked), socket.socket() as s:
        s.connect(("192.0.2.1", 443))


def test_resolving_a_public_name_fails():
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo("api.anthropic.com", 443)
