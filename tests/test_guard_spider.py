"""Zero false refusals: every Spider dev gold query passes guard layers 1-3 against the catalog
of its own database. The Spider folder is WENSHU_SPIDER_DIR, else ../shared/bench/spider_dev;
when it is absent (a checkout without the shared benchmark folder beside it) the test is skipped
with the reason shown in the summary, unless WENSHU_REQUIRE_BENCH_DATA=1 (then it fails)."""

from __future__ import annotations

import os

import pytest

from bench.guard import gold_cases, spider_dir
from wenshu.guard import Guard


@pytest.fixture(scope="module")
def spider():
    root = spider_dir()
    if not (root / "dev.json").is_file():
        why = f"Spider dev set not found at {root} (set WENSHU_SPIDER_DIR)"
        if os.environ.get("WENSHU_REQUIRE_BENCH_DATA") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return gold_cases(root)


def test_every_gold_query_passes_layers_1_to_3(spider):
    cases, catalogs = spider
    guard = Guard(row_limit=1000)
    refused = []
    for db, sql in cases:
        out = guard.check(sql, dialect="sqlite", catalog=catalogs[db])
        if not out.passed:
            refused.append((db, sql, out.code, out.reason))
    assert len(cases) >= 972, len(cases)
    assert refused == [], f"{len(refused)} of {len(cases)} refused, e.g. {refused[:3]}"


def test_a_broken_gold_query_is_still_refused(spider):
    """The same catalogs refuse the same queries once they are wrong: the test can fail."""
    cases, catalogs = spider
    guard = Guard(row_limit=1000)
    db, sql = next((db, sql) for db, sql in cases if sql.upper().startswith("SELECT "))
    broken = "SELECT no_such_column_xyz, " + sql[len("SELECT "):]
    assert guard.check(broken, dialect="sqlite", catalog=catalogs[db]).code == "sql_unknown_column"
    assert guard.check(sql + "; DELETE FROM x", dialect="sqlite", catalog=catalogs[db]).code == "sql_multiple_statements"
