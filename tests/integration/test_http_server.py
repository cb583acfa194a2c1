"""``HttpServer``: a burst of new connections is taken even while the event loop is busy."""

from __future__ import annotations

import select
import socket
import time

from bot.http_server import HttpServer

BURST = 300


async def test_a_burst_of_new_connections_is_established_while_the_loop_is_busy() -> None:
    """The kernel completes connections up to the listen backlog before the server accepts
    them. Past it, new connections' SYNs are dropped and their senders try again only after
    TCP's retransmission timeout: a Slack delivery acked a second late."""
    async with HttpServer("127.0.0.1", 0) as http:
        # The event loop does not run while this coroutine connects: nothing is accepted.
        made: list[socket.socket] = []
        try:
            poller = select.poll()
            for _ in range(BURST):
                sock = socket.socket()
                made.append(sock)
                sock.setblocking(False)
                sock.connect_ex(("127.0.0.1", http.port))
                poller.register(sock, select.POLLOUT)
            pending = {sock.fileno() for sock in made}
            deadline = time.monotonic() + 0.8  # below the 1 s a dropped SYN costs
            while pending and time.monotonic() < deadline:
                for fd, _ in poller.poll(50):
                    if fd in pending:
                        pending.discard(fd)
                        poller.unregister(fd)
            assert not pending, f"{len(pending)} of {BURST} connections not established"
        finally:
            for sock in made:
                sock.close()
