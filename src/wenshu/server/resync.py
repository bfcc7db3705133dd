"""The server's background catalog re-sync: every `resync_check_s` seconds, each datasource whose
synced catalog is older than `resync_max_age_s` (a day by default) is synced again, in a worker
thread so answers keep flowing. `resync_max_age_s = 0` turns it off."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from wenshu.settings import Settings

log = logging.getLogger("wenshu.server.resync")


async def resync_forever(store, settings: Settings) -> None:
    from wenshu.knowledge.sync import resync_all

    while True:
        await asyncio.sleep(settings.resync_check_s)
        try:
            done = await asyncio.to_thread(resync_all, store, settings.resync_max_age_s)
        except Exception:  # noqa: BLE001 - a failed round is logged; the next one tries again
            log.exception("catalog re-sync failed")
            continue
        for name, report in done.items():
            log.info("re-synced catalog of %s: %s", name, report)


@contextlib.asynccontextmanager
async def background_resync(store, settings: Settings):
    """Run `resync_forever` for the lifetime of the app (nothing when turned off)."""
    task = None
    if settings.resync_max_age_s > 0 and settings.resync_check_s > 0:
        task = asyncio.create_task(resync_forever(store, settings))
    try:
        yield task
    finally:
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
