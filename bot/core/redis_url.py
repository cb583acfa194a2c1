"""The forms ``VEILBOT_REDIS_URL`` takes, checked before any connection is made.

One server: ``redis://``, ``rediss://`` (TLS) or ``unix://``, as redis-py reads them. Redis
Cluster: the same URL with ``+cluster`` in the scheme, and one or more seed nodes separated
by commas (any node will do; the client learns the rest from ``CLUSTER SLOTS``)::

    redis+cluster://redis-0.redis:6379
    rediss+cluster://user:secret@clustercfg.example.cache.amazonaws.com:6379
    redis+cluster://10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379

A cluster has database 0 only; a path naming another is refused. Stdlib only: ``Settings``
checks the URL with this, and ``bot.state.client`` opens what it describes.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from bot.core.errors import ConfigError

SINGLE_SCHEMES = ("redis", "rediss", "unix")
CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
DEFAULT_PORT = 6379


@dataclass(frozen=True, slots=True)
class RedisTarget:
    """Where the state lives, as ``parse_redis_url`` reads it.

    Attributes:
        cluster: whether it is a Redis Cluster.
        url: a ``redis://``, ``rediss://`` or ``unix://`` URL redis-py reads (for a cluster:
            the first seed, with the credentials and options of the whole URL).
        seeds: for a cluster, every seed node as (host, port); empty otherwise.
    """

    cluster: bool
    url: str
    seeds: tuple[tuple[str, int], ...] = ()


def parse_redis_url(url: str) -> RedisTarget:
    """Read a Redis URL in one of the forms above.

    Raises:
        ConfigError: an unknown scheme, a cluster URL without a host or with a database
            other than 0, or a malformed port. The message never repeats the URL (it may
            hold a password).
    """
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in SINGLE_SCHEMES + CLUSTER_SCHEMES:
        allowed = ", ".join(f"{s}://" for s in SINGLE_SCHEMES + CLUSTER_SCHEMES)
        raise ConfigError(f"VEILBOT_REDIS_URL must start with one of {allowed}")
    if scheme in SINGLE_SCHEMES:
        return RedisTarget(cluster=False, url=url)
    base = scheme.removesuffix("+cluster")
    netloc, _, tail = _split_authority(rest)
    credentials, _, hosts = netloc.rpartition("@")
    seeds = tuple(_seed(base, part) for part in hosts.split(",") if part.strip())
    if not seeds:
        raise ConfigError("VEILBOT_REDIS_URL: a cluster URL needs at least one host")
    path = urlsplit(f"{base}://x{tail}").path.strip("/")
    if path not in ("", "0"):
        raise ConfigError("VEILBOT_REDIS_URL: a Redis Cluster has database 0 only")
    first = hosts.split(",")[0].strip()
    userinfo = f"{credentials}@" if credentials else ""
    query = tail.partition("?")[2]
    single = f"{base}://{userinfo}{first}" + (f"?{query}" if query else "")
    return RedisTarget(cluster=True, url=single, seeds=seeds)


def _split_authority(rest: str) -> tuple[str, str, str]:
    """``user:pw@h1:1,h2:2/0?x=1`` -> (``user:pw@h1:1,h2:2``, ``/``, ``/0?x=1``)."""
    end = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    return rest[:end], rest[end : end + 1], rest[end:]


def _seed(base: str, part: str) -> tuple[str, int]:
    try:
        parsed = urlsplit(f"{base}://{part.strip()}")
        port = parsed.port or DEFAULT_PORT
    except ValueError:
        raise ConfigError("VEILBOT_REDIS_URL: a cluster seed has a malformed port") from None
    if not parsed.hostname:
        raise ConfigError("VEILBOT_REDIS_URL: a cluster seed has no host")
    return parsed.hostname, port
