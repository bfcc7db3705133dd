"""Saved prompt prefixes on disk: verified before use, atomic under concurrent writers, bounded."""

from __future__ import annotations

import multiprocessing
import os
import time

import pytest

from wenshu.providers.prefix_store import PrefixStore, prefix_hash

MODEL = "c" * 64
TOKENS = list(range(100, 400))
PAYLOAD = bytes(range(256)) * 4096  # 1 MiB


@pytest.fixture
def store(tmp_path) -> PrefixStore:
    return PrefixStore(tmp_path / "prefix", max_bytes=64 << 20)


def test_a_saved_prefix_loads_back_exactly(store):
    ph = prefix_hash(TOKENS)
    store.save(MODEL, ph, TOKENS, PAYLOAD, "demo")
    got = store.load(MODEL, ph)
    assert got is not None and got.tokens == TOKENS and got.payload == PAYLOAD and got.label == "demo"
    assert store.load("d" * 64, ph) is None  # another model never sees it
    assert store.load(MODEL, prefix_hash(TOKENS[:-1])) is None


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "header"])
def test_a_corrupt_or_truncated_prefix_is_discarded_never_loaded(store, damage):
    ph = prefix_hash(TOKENS)
    path = store.save(MODEL, ph, TOKENS, PAYLOAD, "demo")
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) - 1000]
    elif damage == "flip":
        data[-10] ^= 0xFF
    elif damage == "garbage":
        data = bytearray(os.urandom(len(data)))
    elif damage == "empty":
        data = bytearray()
    else:  # a header naming another prefix
        data = data.replace(ph.encode(), prefix_hash([1, 2, 3]).encode(), 1)
    path.write_bytes(bytes(data))
    assert store.load(MODEL, ph) is None
    assert not path.exists()  # deleted, so the next answer rebuilds it


def _writer(root: str, seed: int, barrier) -> None:
    store = PrefixStore(root, max_bytes=64 << 20)
    barrier.wait()
    for _ in range(5):
        store.save(MODEL, prefix_hash(TOKENS), TOKENS, PAYLOAD, "demo")


def test_concurrent_writers_of_the_same_prefix_leave_one_valid_file(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(4)
    procs = [ctx.Process(target=_writer, args=(str(tmp_path / "prefix"), i, barrier)) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    store = PrefixStore(tmp_path / "prefix", max_bytes=64 << 20)
    files = list((tmp_path / "prefix").rglob("*"))
    assert [f for f in files if f.is_file()] == [store.path(MODEL, prefix_hash(TOKENS))]  # no temp files left
    got = store.load(MODEL, prefix_hash(TOKENS))
    assert got is not None and got.payload == PAYLOAD


def test_a_new_prefix_for_a_datasource_replaces_its_old_one(store):
    old, new, other = TOKENS, TOKENS + [7], TOKENS + [8]
    store.save(MODEL, prefix_hash(old), old, PAYLOAD, "demo")
    store.save(MODEL, prefix_hash(other), other, PAYLOAD, "sales")
    store.save(MODEL, prefix_hash(new), new, PAYLOAD, "demo")  # demo's schema changed
    assert store.load(MODEL, prefix_hash(old)) is None
    assert store.load(MODEL, prefix_hash(new)) is not None
    assert store.load(MODEL, prefix_hash(other)) is not None  # other datasources keep theirs
    assert store.clear("sales") == 1 and store.load(MODEL, prefix_hash(other)) is None


def test_disk_use_is_bounded_least_recently_used_first(tmp_path):
    store = PrefixStore(tmp_path / "prefix", max_bytes=int(2.5 * len(PAYLOAD)))
    labels = ["a", "b", "c"]
    for i, label in enumerate(labels):
        toks = TOKENS + [i]
        store.save(MODEL, prefix_hash(toks), toks, PAYLOAD, label)
        if i == 1:
            time.sleep(0.05)
            assert store.load(MODEL, prefix_hash(TOKENS + [0])) is not None  # "a" used again: now newest
            time.sleep(0.05)
    assert store.size() <= store.max_bytes
    assert store.load(MODEL, prefix_hash(TOKENS + [1])) is None  # "b": least recently used, evicted
    assert store.load(MODEL, prefix_hash(TOKENS + [0])) is not None
    assert store.load(MODEL, prefix_hash(TOKENS + [2])) is not None
