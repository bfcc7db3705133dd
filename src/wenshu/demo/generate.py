"""Build the demo SQLite database deterministically, and keep the installed copy fresh.

`build_demo_db` writes into a temporary file next to the target and renames it into place, so a
half-built database is never visible. `ensure_demo_db` rebuilds the installed copy when its
recorded end date is older than today, so relative questions ("上周", "上个月") stay meaningful.
"""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import tempfile
from collections.abc import Callable
from datetime import date
from pathlib import Path

from wenshu.demo import rows, schema
from wenshu.demo.seasonality import window_start

GENERATOR_VERSION = "1"
DEMO_FILENAME = "demo.sqlite"
DEFAULT_SEED = 20240101
DEFAULT_N_ORDERS = 120_000
BATCH_ORDERS = 10_000

# progress(stage, done, total); stages: "reference", "customers", "orders", "traffic", "finish".
Progress = Callable[[str, int, int], None]


def _noop(stage: str, done: int, total: int) -> None:
    pass


def build_demo_db(
    path: Path,
    *,
    end_date: date | None = None,
    seed: int = DEFAULT_SEED,
    n_orders: int = DEFAULT_N_ORDERS,
    progress: Progress | None = None,
) -> Path:
    """Generate the demo database at `path` (replacing any existing file atomically)."""
    path = Path(path)
    end = end_date or date.today()
    report = progress or _noop
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            _fill(conn, end, seed, n_orders, report)
        finally:
            conn.close()
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path


def _stream(seed: int, stage: str) -> random.Random:
    # One independent stream per stage (string seeds are hashed with SHA-512, not hash()).
    return random.Random(f"wenshu-demo:{seed}:{stage}")


def _fill(conn: sqlite3.Connection, end: date, seed: int, n_orders: int, report: Progress) -> None:
    for pragma in ("journal_mode=OFF", "synchronous=OFF", "temp_store=MEMORY", "cache_size=-65536"):
        conn.execute(f"PRAGMA {pragma}")
    conn.execute("BEGIN")
    schema.create_tables(conn)

    report("reference", 0, 1)
    ref = rows.build_reference(_stream(seed, "reference"))
    conn.executemany("INSERT INTO regions VALUES (?, ?)", ref.regions)
    conn.executemany("INSERT INTO cities VALUES (?, ?, ?, ?)", ref.cities)
    conn.executemany("INSERT INTO categories VALUES (?, ?)", ref.categories)
    conn.executemany("INSERT INTO products VALUES (?, ?, ?, ?, ?, ?)", ref.products)
    report("reference", 1, 1)

    n_customers = max(50, n_orders // 5)
    report("customers", 0, n_customers)
    customers = rows.gen_customers(_stream(seed, "customers"), ref, window_start(end), end, n_customers)
    conn.executemany("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?)", customers.rows)
    report("customers", n_customers, n_customers)

    report("orders", 0, n_orders)
    daily: list[tuple[str, list[int]]] = []
    orders: list[tuple] = []
    items: list[tuple] = []
    refunds: list[tuple] = []
    done = 0
    for batch in rows.gen_orders(_stream(seed, "orders"), ref, customers, end, n_orders):
        daily.append((batch.day, batch.channel_orders))
        orders += batch.orders
        items += batch.items
        refunds += batch.refunds
        if len(orders) >= BATCH_ORDERS:
            done += _flush(conn, orders, items, refunds)
            report("orders", done, n_orders)
    done += _flush(conn, orders, items, refunds)
    report("orders", done, n_orders)

    report("traffic", 0, len(daily))
    traffic = rows.gen_traffic(_stream(seed, "traffic"), daily)
    conn.executemany("INSERT INTO daily_traffic VALUES (?, ?, ?, ?)", traffic)
    report("traffic", len(daily), len(daily))

    report("finish", 0, 1)
    schema.create_indexes(conn)
    schema.write_annotations(conn)
    meta = {
        "end_date": end.isoformat(),
        "seed": str(seed),
        "n_orders": str(n_orders),
        "generator_version": GENERATOR_VERSION,
    }
    conn.executemany("INSERT INTO _wenshu_build (key, value) VALUES (?, ?)", sorted(meta.items()))
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    report("finish", 1, 1)


def _flush(conn: sqlite3.Connection, orders: list, items: list, refunds: list) -> int:
    n = len(orders)
    conn.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", orders)
    conn.executemany("INSERT INTO order_items VALUES (?, ?, ?, ?, ?)", items)
    conn.executemany("INSERT INTO refunds VALUES (?, ?, ?, ?, ?, ?)", refunds)
    orders.clear()
    items.clear()
    refunds.clear()
    return n


def read_build_info(path: Path) -> dict[str, str]:
    """The `_wenshu_build` key/values of a demo database; empty if missing or unreadable."""
    path = Path(path)
    if not path.is_file():
        return {}
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return dict(conn.execute("SELECT key, value FROM _wenshu_build").fetchall())
        finally:
            conn.close()
    except sqlite3.Error:
        return {}


def ensure_demo_db(data_dir: Path, progress: Progress | None = None) -> Path:
    """Return `data_dir/demo.sqlite`, (re)building it when missing, stale or from another generator."""
    path = Path(data_dir) / DEMO_FILENAME
    info = read_build_info(path)
    today = date.today()
    stale = (
        not info
        or info.get("generator_version") != GENERATOR_VERSION
        or info.get("end_date", "") < today.isoformat()
    )
    if stale:
        build_demo_db(path, end_date=today, seed=DEFAULT_SEED, n_orders=DEFAULT_N_ORDERS, progress=progress)
    return path
