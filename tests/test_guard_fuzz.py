"""Property-based fuzzing of the guard (hypothesis): it never raises, and it never passes a
statement that contains a write or a denied function, however the attack is spliced in (CTE,
subquery, stacked statement, function argument), cased or commented."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import sqlglot
from sqlglot import exp

from wenshu.guard import Guard
from wenshu.guard.functions import denied_names

DIALECTS = ["sqlite", "postgres", "mysql", "duckdb", "clickhouse", "trino", ""]
G = Guard(row_limit=100)
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Independent oracle: node classes that write or change state, checked on what the guard passed.
WRITE_CLASSES = (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Create, exp.Drop, exp.Alter, exp.Copy,
                 exp.TruncateTable, exp.Command, exp.Pragma, exp.Attach, exp.Detach, exp.Into, exp.Lock,
                 exp.Set, exp.Transaction, exp.Commit, exp.Rollback, exp.Grant)  # fmt: skip

WRITES = [
    "DELETE FROM orders", "UPDATE orders SET amount = 0", "INSERT INTO orders (id) VALUES (1)",
    "DROP TABLE orders", "CREATE TABLE evil AS SELECT 1", "ALTER TABLE orders ADD COLUMN x INT",
    "TRUNCATE TABLE orders", "PRAGMA writable_schema = 1", "ATTACH 'x.db' AS x", "COPY orders TO '/tmp/x'",
    "GRANT ALL ON orders TO public", "SELECT 1 INTO evil",
]  # fmt: skip
# Session statements are statements only at the top: `(BEGIN)` inside a query is a column or table name.
SESSION = ["SET x = 1", "BEGIN", "COMMIT", "ROLLBACK", "START TRANSACTION"]
TOP_SPLICES = ["{w}", "{w};", "SELECT 1; {w}", "{w}; SELECT 1", "/* x */ {w}"]
WRITE_SPLICES = [
    "{w}", "{w};", "SELECT 1; {w}", "{w}; SELECT 1", "WITH x AS ({w} RETURNING *) SELECT * FROM x",
    "WITH x AS (SELECT 1), y AS ({w}) SELECT * FROM x", "SELECT * FROM ({w}) t",
    "SELECT * FROM orders WHERE id IN ({w})", "SELECT (SELECT 1 FROM ({w}) q) AS v",
    "/* {w} */ SELECT 1; {w}", "SELECT 1 UNION ALL ({w})", "WITH x AS (SELECT 1) {w}",
]  # fmt: skip
CALL_SPLICES = [
    "SELECT {f}('x')", "SELECT id, {f}('/etc/passwd', 1) AS v FROM orders", "SELECT * FROM orders WHERE amount > {f}(1)",
    "WITH c AS (SELECT {f}('x') AS v) SELECT v FROM c", "SELECT * FROM {f}('x')", "SELECT upper(CAST({f}('x') AS TEXT))",
    "SELECT * FROM orders o WHERE EXISTS (SELECT 1 FROM orders WHERE id = {f}(o.id))",
    "SELECT 1 UNION ALL SELECT {f}(1)", "SELECT id FROM orders ORDER BY {f}(id)",
    "SELECT CASE WHEN id > 1 THEN {f}(id) END FROM orders", "SELECT COUNT(*) FROM orders GROUP BY {f}(id)",
]  # fmt: skip


def _denied(dialect: str) -> list[str]:
    names = denied_names(dialect)
    return sorted(n for n in names if n.isidentifier())


@st.composite
def obfuscated(draw, text: str) -> str:
    """`text` with random letter case and random comments between words."""
    words = text.split(" ")
    out = []
    for word in words:
        if "'" not in word:
            word = "".join(c.upper() if draw(st.booleans()) else c.lower() for c in word)
        out.append(word)
        out.append(draw(st.sampled_from([" ", " ", "  ", " /* c */ ", "\n", "\t"])))
    return "".join(out).strip()


@st.composite
def write_attacks(draw):
    dialect = draw(st.sampled_from(DIALECTS))
    if draw(st.booleans()):
        sql = draw(st.sampled_from(WRITE_SPLICES)).format(w=draw(st.sampled_from(WRITES)))
    else:
        sql = draw(st.sampled_from(TOP_SPLICES)).format(w=draw(st.sampled_from(SESSION)))
    return dialect, draw(obfuscated(sql))


@st.composite
def call_attacks(draw):
    dialect = draw(st.sampled_from(DIALECTS))
    sql = draw(st.sampled_from(CALL_SPLICES)).format(f=draw(st.sampled_from(_denied(dialect))))
    return dialect, draw(obfuscated(sql))


def _assert_clean(sql: str, dialect: str) -> None:
    """What passed re-parses to one tree with no write node and no denied call."""
    trees = [t for t in sqlglot.parse(sql, read=dialect or None) if t is not None]
    assert len(trees) == 1
    denied = {n.lower() for n in _denied(dialect)}
    for node in trees[0].walk():
        assert not isinstance(node, WRITE_CLASSES), (sql, type(node).__name__)
        if isinstance(node, exp.Anonymous):
            assert node.name.lower() not in denied, sql


@FAST
@given(st.text(max_size=300), st.sampled_from(DIALECTS))
def test_never_raises_on_text(text, dialect):
    out = G.check(text, dialect=dialect)
    assert out.passed in (True, False) and (out.passed or out.reason)
    if out.passed:
        _assert_clean(out.sql, dialect)


@FAST
@given(st.binary(max_size=300), st.sampled_from(DIALECTS))
def test_never_raises_on_decoded_bytes(data, dialect):
    out = G.check(data.decode("utf-8", errors="replace"), dialect=dialect)
    assert out.passed or out.reason


@FAST
@given(write_attacks())
def test_spliced_writes_never_pass(attack):
    dialect, sql = attack
    out = G.check(sql, dialect=dialect)
    assert not out.passed, (dialect, sql, out.sql)


@FAST
@given(call_attacks())
def test_spliced_denied_calls_never_pass(attack):
    dialect, sql = attack
    out = G.check(sql, dialect=dialect)
    assert not out.passed, (dialect, sql, out.sql)


# ---- generated trees: random read queries, sometimes carrying a write or denied node ------------
names = st.sampled_from(["id", "amount", "city", "name", "x"])
tables = st.sampled_from(["orders", "customers", "t"])


@st.composite
def predicates(draw):
    col = exp.column(draw(names), table=draw(st.sampled_from([None, "a"])))
    value = exp.Literal.number(draw(st.integers(-5, 5)))
    return draw(st.sampled_from([exp.EQ, exp.GT, exp.LT, exp.NEQ]))(this=col, expression=value)


@st.composite
def selects(draw, depth: int = 0):
    query = exp.select(*[exp.column(n) for n in draw(st.lists(names, min_size=1, max_size=3))])
    source = exp.to_table(draw(tables))
    if depth < 2 and draw(st.booleans()):
        source = draw(selects(depth + 1)).subquery("a")
    else:
        source = source.as_("a")
    query = query.from_(source)
    if draw(st.booleans()):
        query = query.where(draw(predicates()))
    if draw(st.booleans()):
        query = query.limit(draw(st.integers(0, 10_000)))
    return query


@st.composite
def poisoned(draw):
    """A generated read query, with a write or a denied call spliced into a random place."""
    dialect = draw(st.sampled_from(DIALECTS))
    query = draw(selects())
    kind = draw(st.sampled_from(["clean", "cte_write", "call", "into"]))
    if kind == "cte_write":
        write = sqlglot.parse_one(draw(st.sampled_from(["DELETE FROM orders", "UPDATE orders SET amount = 0"])))
        query = query.with_("w", as_=write)
    elif kind == "call":
        call = exp.Anonymous(this=draw(st.sampled_from(_denied(dialect))), expressions=[exp.Literal.string("x")])
        query = query.select(call.as_("v"))
    elif kind == "into":
        query.set("into", exp.Into(this=exp.to_table("evil")))
    try:
        sql = query.sql(dialect=dialect or None)
    except Exception:  # noqa: BLE001 - a dialect that cannot write this tree; test the generic text
        sql = query.sql()
    return dialect, kind, sql


@FAST
@given(poisoned())
def test_generated_trees(case):
    dialect, kind, sql = case
    out = G.check(sql, dialect=dialect)
    if kind != "clean":
        assert not out.passed, (dialect, sql, out.sql)
    elif out.passed:
        _assert_clean(out.sql, dialect)
    else:
        assert out.reason and out.code != "sql_check_failed", out
