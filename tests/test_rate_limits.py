"""The per-token rate limit: the same token bucket in this process (`RateLimiter`) and in Redis
(`RedisRateLimiter`, on the real redis-server the tests start), shared by every process that uses one Redis."""

from __future__ import annotations

import threading
import time

import pytest

from wenshu.errors import RateLimited
from wenshu.server.limits import RateLimiter
from wenshu.server.limits_redis import RedisRateLimiter, open_rate_limiter
from wenshu.storage.redis_link import RedisLink


@pytest.fixture
def links(request):
    """make(url) -> a new RedisLink (one per simulated process), closed at teardown."""
    made: list[RedisLink] = []

    def make(url: str, **kw) -> RedisLink:
        made.append(RedisLink(url, **kw))
        return made[-1]

    yield make
    for link in made:
        link.close()


@pytest.fixture(params=["process", "redis"])
def limiter_factory(request, links):
    """per_minute -> a limiter of the kind under test (the factory the server uses picks it)."""
    if request.param == "process":
        return lambda per_minute: open_rate_limiter(per_minute, None)
    url = request.getfixturevalue("redis_url")
    return lambda per_minute: open_rate_limiter(per_minute, links(url))


def allowed(limiter, key: str, n: int) -> int:
    ok = 0
    for _ in range(n):
        try:
            limiter.check(key)
            ok += 1
        except RateLimited:
            pass
    return ok


def test_a_burst_up_to_the_limit_then_429_with_retry_after(limiter_factory):
    limiter = limiter_factory(6)
    assert allowed(limiter, "token:1", 6) == 6
    with pytest.raises(RateLimited) as refused:
        limiter.check("token:1")
    assert 1 <= refused.value.retry_after <= 10 and refused.value.code == "rate_limited"
    assert refused.value.to_dict("zh")["message"].startswith("请求过于频繁")
    assert allowed(limiter, "token:2", 6) == 6  # every key has its own bucket


def test_the_bucket_refills_at_the_rate(limiter_factory):
    limiter = limiter_factory(120)  # two a second
    assert allowed(limiter, "k", 120) == 120
    assert allowed(limiter, "k", 1) == 0
    time.sleep(0.6)
    assert 1 <= allowed(limiter, "k", 10) <= 2


def test_zero_turns_the_limit_off(limiter_factory):
    assert allowed(limiter_factory(0), "k", 500) == 500


def test_the_factory_picks_the_kind(redis_url, links):
    assert type(open_rate_limiter(5)) is RateLimiter
    assert type(open_rate_limiter(5, links(redis_url))) is RedisRateLimiter


def test_two_processes_share_one_bucket_and_never_overspend_it(redis_url, links):
    """Two limiters on two links (two server processes): 30 concurrent requests, exactly 10 get through."""
    first, second = (RedisRateLimiter(links(redis_url), 10) for _ in range(2))
    assert allowed(first, "token:7", 3) == 3 and allowed(second, "token:7", 3) == 3
    counts: list[int] = []
    threads = [threading.Thread(target=lambda lim=lim: counts.append(allowed(lim, "token:7", 5)))
               for lim in (first, second) * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(counts) == 4
    with pytest.raises(RateLimited):
        first.check("token:7")


def test_a_shared_bucket_expires_once_it_would_be_full(redis_url, links):
    link = links(redis_url)
    RedisRateLimiter(link, 60).check("token:9")  # one a second: full again after 1 s
    assert 0 < link.client.pttl("rate:token:9") <= 2000
