"""Bad input reaches the guard as text: each case is refused quickly with a reason, never a crash."""

from __future__ import annotations

import os
import random
import time

import pytest

from wenshu.guard import Guard

G = Guard(row_limit=1000)


def refused_quickly(sql: str, dialect: str = "sqlite", limit_s: float = 2.0):
    t0 = time.perf_counter()
    out = G.check(sql, dialect=dialect)
    took = time.perf_counter() - t0
    assert not out.passed and out.reason and out.hint_for_model, out
    assert took < limit_s, f"{took:.2f}s"
    return out


@pytest.mark.parametrize("sql", ["", " ", "\n\t  \r\n", ";", "\x00", None])
def test_empty(sql):
    assert refused_quickly(sql).code in {"sql_empty", "sql_parse_error"}


@pytest.mark.parametrize("sql", ["-- nothing here", "/* nothing */", "# mysql comment", "-- a\n/* b */\n"])
def test_comment_only(sql):
    assert refused_quickly(sql, "mysql").code == "sql_empty"


def test_megabyte_sql():
    sql = "SELECT " + ", ".join(f"c{i}" for i in range(150_000)) + " FROM t"
    assert len(sql) > 1_000_000
    out = refused_quickly(sql)
    assert out.code == "sql_too_long" and "characters" in out.reason


def test_just_under_the_size_limit_is_parsed_not_refused_for_size():
    sql = "SELECT 1 WHERE 1 IN (" + ", ".join(["1"] * 6_000) + ")"
    assert 17_000 < len(sql) < 20_000
    t0 = time.perf_counter()
    out = G.check(sql, dialect="sqlite")
    assert out.passed and time.perf_counter() - t0 < 2.0


@pytest.mark.parametrize("seed", range(5))
def test_binary_garbage(seed):
    data = random.Random(seed).randbytes(4096) if seed else os.urandom(4096)
    text = data.decode("latin-1")
    out = refused_quickly(text)
    assert out.code in {"sql_parse_error", "sql_empty", "sql_not_read_only", "sql_too_complex"}


@pytest.mark.parametrize("sql", [
    "SELECT " + "(" * 500 + "1" + ")" * 500,
    "SELECT * FROM " + "(SELECT * FROM " * 500 + "t" + ") x" * 500,
    "SELECT 1 WHERE " + "EXISTS (SELECT 1 WHERE " * 500 + "1=1" + ")" * 500,
    "SELECT " + "(" * 500,
])  # fmt: skip
def test_deep_nesting(sql):
    out = refused_quickly(sql)
    assert out.code == "sql_too_complex" and "nested" in out.reason


@pytest.mark.parametrize("sql", [
    "SELECT " + "NOT " * 3000 + "1",
    "SELECT " + "- " * 5000 + "1",  # 10k characters
    "SELECT " + " + ".join(["1"] * 4_000),
    "SELECT " + "CASE WHEN 1 THEN " * 800 + "1" + " END" * 800,
])  # fmt: skip
def test_deep_trees_without_parentheses(sql):
    out = G.check(sql, dialect="sqlite")  # either refused with a reason or passed; never a crash
    assert out.passed or (out.reason and out.code in {"sql_too_complex", "sql_parse_error", "sql_check_failed"})


def test_nesting_inside_strings_does_not_count():
    out = G.check("SELECT '" + "(" * 200 + "' AS s", dialect="sqlite")
    assert out.passed, out


@pytest.mark.parametrize("sql", ["SELECT\u200b1", "ＳＥＬＥＣＴ 1", "SELECT 1; \u037e DROP TABLE t", "SELECT 'abc"])
def test_unicode_tricks(sql):
    out = G.check(sql, dialect="postgres")
    assert not out.passed or out.sql.startswith("SELECT")


def test_validate_protocol_row_limit_must_be_positive():
    with pytest.raises(ValueError):
        G.validate("SELECT 1", dialect="sqlite", row_limit=0)
    with pytest.raises(ValueError):
        Guard(row_limit=0)
