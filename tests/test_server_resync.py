"""The server re-syncs stale catalogs in the background, and not at all when turned off."""

from __future__ import annotations

import time


def _synced_at(live):
    return live.state.store.catalogs.status("demo").synced_at


def test_stale_catalogs_are_resynced_in_the_background(server_factory):
    live = server_factory(resync_max_age_s=0.05, resync_check_s=0.2)
    first = _synced_at(live)
    deadline = time.monotonic() + 20
    while _synced_at(live) == first and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _synced_at(live) > first


def test_resync_can_be_turned_off(server_factory):
    live = server_factory(resync_max_age_s=0, resync_check_s=0.1)
    first = _synced_at(live)
    time.sleep(0.8)
    assert _synced_at(live) == first
