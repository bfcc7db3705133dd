"""The attack corpus (tests/data/attacks.yaml) against every engine adapter, on the real engine: SQLite,
PostgreSQL, MariaDB, DuckDB, ClickHouse (chDB) and Spark SQL (local).

Every case runs twice per engine:
(a) the full guard (layers 1-3 with the catalog and the plan check), then, if it passed, the
    read-only executor on the rewritten SQL: every attack must be refused by layers 1-3;
(b) layer 4 alone (the test-only path): the read-only executor called directly with the raw SQL,
    connected as the non-privileged role on the servers. An engine without a read-only session of its
    own (Spark SQL: `read_only_session = False`) has no layer 4: (b) is skipped there and says so, and
    (a) shows that the guard's layers alone refuse every case.
After each case: every table's checksum is unchanged, no file appeared in the sentinel directory,
the sentinel file's content was not returned (not even inside an error), and the case finished
within the time limit plus a small slack. The last test prints the refusals by layer.
"""

from __future__ import annotations

import collections
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from fixtures_seed import SENTINEL_TEXT, checksums, files_under, seed_sqlite
from wenshu.catalog import Catalog
from wenshu.engines.execute import execute_readonly
from wenshu.engines.registry import adapter_for
from wenshu.errors import WenshuError
from wenshu.guard import Guard
from wenshu.knowledge.introspect import load_catalog

ENGINES = ("sqlite", "postgres", "mysql", "duckdb", "clickhouse", "spark")
CORPUS = yaml.safe_load((Path(__file__).parent / "data" / "attacks.yaml").read_text())
TIMEOUT_S = 1.0
SLACK_S = 1.5
ROW_LIMIT = 100
REFUSED_BY_LAYER: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)


@dataclass
class Target:
    dialect: str  # the corpus's engine name: sqlite | postgres | mysql | duckdb | clickhouse | spark
    url: str  # what the guarded path (a) runs with
    ro_url: str  # what layer 4 alone (b) runs with
    checksums: Callable[[], dict]  # every table's checksum, read with full rights
    sentinel_dir: Path
    sentinel_file: Path
    catalog: Catalog
    baseline: dict
    files: set


def _target(dialect, url, ro_url, sums, sentinel_dir, sentinel_file) -> Target:
    catalog = load_catalog("corpus", url)
    return Target(dialect, url, ro_url, sums, sentinel_dir, sentinel_file, catalog, sums(), files_under(sentinel_dir))


@pytest.fixture(scope="module")
def sqlite_target(tmp_path_factory):
    base = tmp_path_factory.mktemp("corpus")
    url = seed_sqlite(base / "shop.db")
    sentinel_dir = base / "sentinel"
    sentinel_dir.mkdir()
    (sentinel_dir / "secret.txt").write_text(SENTINEL_TEXT + "\n")
    yield _target("sqlite", url, url, lambda: checksums(url), sentinel_dir, sentinel_dir / "secret.txt")
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres_target(pg_server):
    s = pg_server
    return _target("postgres", s.url, s.ro_url, lambda: checksums(s.url), s.sentinel_dir, s.sentinel_file)


@pytest.fixture(scope="module")
def mysql_target(mariadb_server):
    s = mariadb_server
    return _target("mysql", s.url, s.ro_url, lambda: checksums(s.url), s.sentinel_dir, s.sentinel_file)


@pytest.fixture(scope="module")
def duckdb_target(duckdb_db):
    d = duckdb_db
    return _target("duckdb", d.url, d.url, d.checksums, d.sentinel_dir, d.sentinel_file)


@pytest.fixture(scope="module")
def clickhouse_target(clickhouse_db):
    d = clickhouse_db
    return _target("clickhouse", d.url, d.url, d.checksums, d.sentinel_dir, d.sentinel_file)


@pytest.fixture(scope="module")
def spark_target(spark_db, tmp_path_factory):
    sentinel_dir = tmp_path_factory.mktemp("spark_sentinel")
    (sentinel_dir / "secret.txt").write_text(SENTINEL_TEXT + "\n")
    return _target("spark", spark_db.url, spark_db.url, spark_db.checksums, sentinel_dir, sentinel_dir / "secret.txt")


# Attacks layers 1-3 still let through; layer 4 contains each of them (the harm checks run first and
# always hold). "strict": once the guard refuses the case, this entry must be removed. Not strict:
# the outcome depends on timing. Empty now: system catalogs (layer 2, sql_system_table), constant-size
# bombs (layer 3, sql_resource_bomb) and recursive CTEs bounded by a huge constant (layer 3,
# sql_recursion_too_deep) are refused by the guard; add an entry here when a new case finds a gap.
GUARD_GAPS: dict[tuple[str, str], tuple[str, bool]] = {
    ("duckdb", "obfuscation-17"): ("DuckDB, like the parser, reads `；DELETE` as a column alias: a plain read", True),
}


def _params(layer4: bool = False):
    out = []
    for dialect in ENGINES:
        if layer4 and not adapter_for(dialect).read_only_session:
            continue  # no layer 4 there: test_engines_without_a_read_only_session_say_so
        for case in CORPUS:
            if dialect in case["dialects"]:
                out.append(pytest.param(dialect, case, id=f"{dialect}-{case['id']}"))
    return out


def _sql(case: dict, t: Target) -> str:
    return case["sql"].replace("{sentinel_file}", str(t.sentinel_file)).replace("{sentinel_dir}", str(t.sentinel_dir))


def _execute(url: str, sql: str) -> tuple[str, float]:
    """What the executor returned (rows or the error text) and how long it took."""
    started = time.monotonic()
    try:
        res = execute_readonly(url, sql, row_limit=ROW_LIMIT, timeout_s=TIMEOUT_S)
        seen = repr(res.rows)
    except WenshuError as err:
        seen = f"{err.code}: {err.en} {err.zh}"
    return seen, time.monotonic() - started


def _assert_no_harm(t: Target, seen: str, elapsed: float, what: str) -> None:
    assert SENTINEL_TEXT not in seen, f"{what}: the sentinel file's content was returned"
    assert elapsed <= TIMEOUT_S + SLACK_S, f"{what}: ran {elapsed:.2f} s (limit {TIMEOUT_S} s)"
    assert files_under(t.sentinel_dir) == t.files, f"{what}: a file was created"
    assert t.checksums() == t.baseline, f"{what}: the data or schema changed"


@pytest.fixture
def target(request, dialect):
    return request.getfixturevalue(f"{dialect}_target")


@pytest.mark.parametrize(("dialect", "case"), _params())
def test_guard_refuses_and_nothing_happens(target, dialect, case):
    sql = _sql(case, target)
    guard = Guard(policy=None, row_limit=ROW_LIMIT, plan_limits=None, plan_timeout_s=TIMEOUT_S)
    started = time.monotonic()
    outcome = guard.check(sql, dialect=dialect, catalog=target.catalog, url=target.url)
    checked = time.monotonic() - started
    seen = outcome.reason + outcome.hint_for_model
    elapsed = 0.0
    if outcome.passed:
        seen, elapsed = _execute(target.url, outcome.sql)
    else:
        REFUSED_BY_LAYER[dialect][f"layer {outcome.layer}"] += 1
    _assert_no_harm(target, seen, max(elapsed, checked), f"(a) {case['id']}")
    gap, strict = GUARD_GAPS.get((dialect, case["id"]), (None, False))
    if gap and outcome.passed:
        pytest.xfail(f"guard gap, contained by layer 4: {gap}")
    assert not (gap and strict), f"(a) {case['id']} is refused now: remove it from GUARD_GAPS"
    assert not outcome.passed, f"(a) {case['id']}: the guard passed an attack ({case['note']}): {outcome.sql!r}"


@pytest.mark.parametrize(("dialect", "case"), _params(layer4=True))
def test_layer4_alone_allows_no_harm(target, dialect, case):
    seen, elapsed = _execute(target.ro_url, _sql(case, target))
    _assert_no_harm(target, seen, elapsed, f"(b) {case['id']}")


def test_engines_without_a_read_only_session_say_so():
    """Spark SQL runs a write that reaches it: only layers 1-3 (all of the corpus, above) protect it."""
    assert [e for e in ENGINES if not adapter_for(e).read_only_session] == ["spark"]


def test_corpus_shape():
    ids = [c["id"] for c in CORPUS]
    assert len(ids) == len(set(ids)) and len(ids) >= 150
    for case in CORPUS:
        assert set(case) == {"id", "dialects", "sql", "category", "note"}, case["id"]
        assert case["dialects"] and set(case["dialects"]) <= {"sqlite", "postgres", "mysql", "duckdb", "clickhouse",
                                                              "spark"}, case["id"]
    needed = {"dml", "ddl", "cte_write", "select_into", "locking", "transaction", "stacked", "obfuscation",
              "dynamic", "file_read", "file_write", "admin", "privilege", "timebomb"}  # fmt: skip
    assert needed <= {c["category"] for c in CORPUS}


def test_report_refusals_by_layer(capsys):
    """Prints how layers 1-3 split the refusals (run with -s to see it)."""
    with capsys.disabled():
        for dialect, counts in sorted(REFUSED_BY_LAYER.items()):
            print(f"\n[corpus] {dialect}: refused {sum(counts.values())} ({dict(sorted(counts.items()))})")
