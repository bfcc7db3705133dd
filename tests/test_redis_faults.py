"""The shared Redis going away and coming back, on a real redis-server the test stops and starts: the result
cache misses instead of failing, the rate limits fall back to this process's own, one warning is logged per
outage, and Redis is used again once it answers. Also the checks `wenshu serve` and `wenshu doctor` run at
start: a bad URL, no server, a version too old (a stand-in server that says it is Redis 4.0)."""

from __future__ import annotations

import logging
import socketserver
import threading
import time

import pytest

from fixtures_servers import free_port
from test_rate_limits import allowed
from wenshu.errors import RedisUnusable
from wenshu.server.limits_redis import RedisRateLimiter
from wenshu.storage.cache import make_key
from wenshu.storage.cache_redis import RedisResultCache
from wenshu.storage.redis_link import RedisLink, check_redis, redact, too_old

RETRY_S = 0.05


def _put(cache, key: str) -> None:
    cache.put(key, datasource="demo", sql="select 1", data_version=1, columns=["a"], rows=[[1]])


def _messages(caplog, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "wenshu.redis" and text in r.getMessage()]


def test_an_outage_degrades_to_no_cache_and_local_limits_then_recovers(redis_factory, caplog):
    server = redis_factory()
    link = RedisLink(server.url, retry_s=RETRY_S)
    cache, limiter = RedisResultCache(link, ttl_s=60), RedisRateLimiter(link, 3)
    key = make_key("demo", "select 1", 1)
    _put(cache, key)
    assert cache.get(key).hits == 1 and allowed(limiter, "token:1", 1) == 1 and link.available

    server.stop()
    with caplog.at_level(logging.WARNING, logger="wenshu.redis"):
        for _ in range(4):  # each past the retry interval, so each really tries Redis
            time.sleep(RETRY_S * 1.5)
            assert cache.get(key) is None
            _put(cache, key)
        assert cache.clear() == 0 and cache.evict_older_than(0) == 0
        assert not link.available
        assert allowed(limiter, "token:1", 5) == 3  # this process's own bucket, full: the same limit
        assert len(_messages(caplog, "unreachable")) == 1  # once per outage, not per request

        server.start()
        time.sleep(RETRY_S * 1.5)
        _put(cache, key)
        assert cache.get(key).hits == 1 and link.available
        assert len(_messages(caplog, "is back")) == 1
        assert allowed(limiter, "token:1", 5) == 3  # the shared bucket again (the restarted Redis is empty)
        assert link.client.exists("rate:token:1") == 1
    link.close()


def test_a_closed_port_from_the_start_is_an_outage_too(caplog):
    link = RedisLink(f"redis://127.0.0.1:{free_port()}/0", retry_s=60)
    cache, limiter = RedisResultCache(link, ttl_s=60), RedisRateLimiter(link, 2)
    with caplog.at_level(logging.WARNING, logger="wenshu.redis"):
        started = time.monotonic()
        for i in range(20):
            _put(cache, make_key("demo", f"select {i}", 1))
            assert cache.get(make_key("demo", f"select {i}", 1)) is None
        assert time.monotonic() - started < 2.0  # after the first refusal it waits for the retry, not per call
        assert allowed(limiter, "client:x", 4) == 2
        assert not link.ping()
    assert len(_messages(caplog, "unreachable")) == 1
    link.close()


def test_the_start_check_names_the_version_or_the_fault(redis_url):
    version = check_redis(redis_url)
    assert not too_old(version) and version.split(".")[0].isdigit()
    with pytest.raises(RedisUnusable) as bad:
        check_redis("http://127.0.0.1:6379/0")
    assert bad.value.code == "redis_bad_url" and "redis://host:6379/0" in bad.value.message("en")
    assert "不是 Redis 地址" in bad.value.message("zh")
    with pytest.raises(RedisUnusable) as gone:
        check_redis(f"redis://:s3cret@127.0.0.1:{free_port()}/0")
    assert gone.value.code == "redis_unreachable" and "Cannot reach Redis" in gone.value.message("en")
    assert "s3cret" not in gone.value.message("en") and ":***@" in gone.value.message("en")


class OldRedis(socketserver.ThreadingTCPServer):
    """Speaks just enough RESP to stand in for a Redis older than this machine's: INFO answers `version`, HELLO
    (Redis 6's RESP3 greeting) is an unknown command as before 6.0, anything else +OK."""

    daemon_threads = allow_reuse_address = True

    def __init__(self, version: str):
        self.version = version
        super().__init__(("127.0.0.1", 0), _OldRedisHandler)

    def __enter__(self) -> str:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return f"redis://127.0.0.1:{self.server_address[1]}/0"

    def __exit__(self, *exc) -> None:
        self.shutdown()
        self.server_close()


class _OldRedisHandler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        while line := self.rfile.readline():
            if not line.startswith(b"*"):
                continue
            words = [self.rfile.read(int(self.rfile.readline()[1:]) + 2)[:-2].decode().upper()
                     for _ in range(int(line[1:]))]
            if words[0] == "INFO":
                body = f"# Server\r\nredis_version:{self.server.version}\r\n".encode()
                self.wfile.write(b"$%d\r\n%s\r\n" % (len(body), body))
            elif words[0] == "HELLO":
                self.wfile.write(b"-ERR unknown command 'HELLO'\r\n")
            else:
                self.wfile.write(b"+OK\r\n")


def test_redis_older_than_5_0_is_refused_and_5_0_is_enough():
    with OldRedis("4.0.14") as url, pytest.raises(RedisUnusable) as old:
        check_redis(url)
    assert old.value.code == "redis_too_old" and "Redis 4.0.14 at redis://127.0.0.1:" in old.value.message("en")
    assert "版本过旧" in old.value.message("zh") and "Redis 5.0 or newer" in old.value.message("en")
    with OldRedis("5.0.14") as url:  # no RESP3 greeting (HELLO needs 6.0): the client speaks RESP2
        assert check_redis(url) == "5.0.14"
    assert too_old("4.0.14") and too_old("3.2.12") and too_old("garbage")
    assert not too_old("5.0.0") and not too_old("7.0.15") and not too_old("10.0")
    assert redact("redis://user:pw@h:6379/0") == "redis://user:***@h:6379/0"
    assert redact("redis://h:6379/0") == "redis://h:6379/0"
