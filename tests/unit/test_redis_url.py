"""``VEILBOT_REDIS_URL``: one server or a Redis Cluster, refused clearly when malformed."""

from __future__ import annotations

import pytest

from bot.config.settings import load_settings
from bot.core.errors import ConfigError
from bot.core.redis_url import parse_redis_url


@pytest.mark.parametrize(
    "url",
    ["redis://localhost:6379/0", "rediss://u:p@cache.example:6380/2", "unix:///run/redis.sock"],
)
def test_a_single_server_url_is_passed_on_as_written(url: str) -> None:
    target = parse_redis_url(url)
    assert (target.cluster, target.url, target.seeds) == (False, url, ())


def test_a_cluster_url_names_every_seed_and_keeps_credentials_and_options() -> None:
    target = parse_redis_url(
        "rediss+cluster://app:s%40cret@10.0.0.1:7000,10.0.0.2,[::1]:7002/0?ssl_cert_reqs=none"
    )
    assert target.cluster
    assert target.seeds == (("10.0.0.1", 7000), ("10.0.0.2", 6379), ("::1", 7002))
    assert target.url == "rediss://app:s%40cret@10.0.0.1:7000?ssl_cert_reqs=none"


def test_a_managed_clusters_configuration_endpoint_is_one_seed() -> None:
    target = parse_redis_url("rediss+cluster://clustercfg.veilbot.abc123.use1.cache.amazonaws.com")
    assert target.seeds == (("clustercfg.veilbot.abc123.use1.cache.amazonaws.com", 6379),)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("http://cache:6379", "must start with one of"),
        ("cache:6379", "must start with one of"),
        ("redis+sentinel://cache:26379", "must start with one of"),
        ("redis+cluster://", "at least one host"),
        ("redis+cluster://cache:6379/3", "database 0 only"),
        ("redis+cluster://cache:port", "malformed port"),
    ],
)
def test_a_malformed_url_is_refused_by_name_without_echoing_it(url: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says) as info:
        load_settings(redis_url=url.replace("cache", "u:hunter2@cache"))
    assert "VEILBOT_REDIS_URL" in str(info.value)
    assert "hunter2" not in str(info.value)


def test_settings_accept_a_cluster_url() -> None:
    settings = load_settings(redis_url=" redis+cluster://redis-0.redis:6379,redis-1.redis:6379 ")
    assert settings.redis_url == "redis+cluster://redis-0.redis:6379,redis-1.redis:6379"
