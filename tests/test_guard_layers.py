"""The guard, layer by layer and dialect by dialect: what is refused (with which code) and what
legitimate analytics must pass. Real sqlglot parsing, a real SQLite catalog; no mocks."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.guard import Guard, GuardPolicy
from wenshu.knowledge.introspect import load_catalog

DIALECTS = ["sqlite", "postgres", "mysql", "duckdb", "clickhouse", "trino"]


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    path = tmp_path_factory.mktemp("guard") / "shop.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT, phone TEXT);
        CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id),
                             amount REAL, created_at TEXT);
        CREATE TABLE salaries (id INTEGER PRIMARY KEY, customer_id INTEGER, salary REAL);
        """
    )
    conn.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)", [(i, f"c{i}", "x", "138") for i in range(300)])
    conn.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)", [(i, i % 300, 1.0, "2024-01-01") for i in range(300)])
    conn.commit()
    conn.close()
    return load_catalog("shop", f"sqlite:///{path}")


G = Guard(row_limit=None)


def check(sql, dialect="sqlite", catalog=None, guard=G):
    return guard.check(sql, dialect=dialect, catalog=catalog)


# ---- layer 1: statement class --------------------------------------------------------------
@pytest.mark.parametrize("sql, dialect", [
    ("PRAGMA writable_schema = ON", "sqlite"), ("ATTACH 'x.db' AS y", "sqlite"), ("DETACH y", "sqlite"),
    ("VACUUM INTO '/tmp/copy.db'", "sqlite"), ("REPLACE INTO orders VALUES (1, 1, 1, 'x')", "sqlite"),
    ("COPY orders TO '/tmp/x'", "postgres"), ("COPY (SELECT 1) TO PROGRAM 'id'", "postgres"),
    ("SET search_path = evil", "postgres"), ("DO $$ BEGIN DELETE FROM orders; END $$", "postgres"),
    ("BEGIN", "postgres"), ("COMMIT", "postgres"), ("EXPLAIN ANALYZE DELETE FROM orders", "postgres"),
    ("SELECT 1 INTO TEMP x", "postgres"), ("SELECT * FROM orders FOR SHARE", "postgres"),
    ("WITH x AS (UPDATE orders SET amount = 0 RETURNING *) SELECT * FROM x", "postgres"),
    ("SELECT * FROM orders WHERE id IN (WITH d AS (DELETE FROM orders RETURNING id) SELECT id FROM d)", "postgres"),
    ("GRANT ALL ON orders TO public", "postgres"), ("LISTEN x", "postgres"), ("CHECKPOINT", "postgres"),
    ("MERGE INTO orders USING customers c ON orders.id = c.id WHEN MATCHED THEN DELETE", "postgres"),
    ("LOAD DATA INFILE '/etc/passwd' INTO TABLE orders", "mysql"), ("CALL evil()", "mysql"),
    ("SELECT * FROM orders INTO OUTFILE '/tmp/x'", "mysql"), ("SELECT 1 INTO DUMPFILE '/tmp/x'", "mysql"),
    ("SET @a = 1", "mysql"), ("START TRANSACTION", "mysql"), ("SELECT * FROM orders LOCK IN SHARE MODE", "mysql"),
    ("SELECT 1 INTO @a", "mysql"), ("KILL 1", "mysql"), ("USE other", "mysql"),
    ("INSTALL httpfs", "duckdb"), ("LOAD httpfs", "duckdb"), ("COPY orders TO 'x.csv'", "duckdb"),
    ("SYSTEM FLUSH LOGS", "clickhouse"), ("INSERT INTO orders SELECT * FROM orders", "clickhouse"),
    ("CALL system.runtime.kill_query('x')", "trino"), ("DELETE FROM orders", "trino"),
])  # fmt: skip
def test_statement_class_refused(sql, dialect):
    out = check(sql, dialect)
    assert not out.passed and out.layer == 1, out
    assert out.code in {"sql_not_read_only", "sql_parse_error"}, out.code
    assert out.reason and out.hint_for_model and out.sql == sql


@pytest.mark.parametrize("sql, dialect, name", [
    ("SELECT load_extension('/tmp/evil.so')", "sqlite", "load_extension"),
    ("SELECT readfile('/etc/passwd')", "sqlite", "readfile"),
    ("SELECT writefile('/tmp/x', 'y')", "sqlite", "writefile"),
    ("SELECT * FROM fsdir('/')", "sqlite", "fsdir"),
    ("SELECT pg_read_file('/etc/passwd')", "postgres", "pg_read_file"),
    ('SELECT "PG_LS_DIR"(\'/\')', "postgres", "pg_ls_dir"),
    ("SELECT pg_catalog.pg_sleep(10)", "postgres", "pg_sleep"),
    ("SELECT lo_import('/etc/passwd')", "postgres", "lo_import"),
    ("SELECT * FROM dblink('host=x', 'select 1') AS t(a int)", "postgres", "dblink"),
    ("SELECT set_config('statement_timeout', '0', false)", "postgres", "set_config"),
    ("SELECT query_to_xml('delete from orders', true, true, '')", "postgres", "query_to_xml"),
    ("SELECT id FROM orders WHERE id = (SELECT nextval('s'))", "postgres", "nextval"),
    ("SELECT SLEEP(5)", "mysql", "sleep"), ("SELECT BeNcHmArK(1000000, md5('a'))", "mysql", "benchmark"),
    ("SELECT LOAD_FILE('/etc/passwd')", "mysql", "load_file"), ("SELECT GET_LOCK('x', 10)", "mysql", "get_lock"),
    ("SELECT * FROM read_csv('/etc/passwd')", "duckdb", "read_csv"),
    ("SELECT * FROM read_parquet('s3://b/x.parquet')", "duckdb", "read_parquet"),
    ("SELECT * FROM glob('/home/*')", "duckdb", "glob"), ("SELECT getenv('HOME')", "duckdb", "getenv"),
    ("SELECT * FROM query('DELETE FROM orders')", "duckdb", "query"),
    ("SELECT * FROM url('http://evil/x', CSV)", "clickhouse", "url"),
    ("SELECT * FROM s3('https://b/x.csv')", "clickhouse", "s3"),
    ("SELECT * FROM file('/etc/passwd', 'LineAsString')", "clickhouse", "file"),
    ("SELECT * FROM remote('host', db.t)", "clickhouse", "remote"),
    ("SELECT sleepEachRow(1) FROM orders", "clickhouse", "sleepeachrow"),
    ("SELECT * FROM TABLE(system.query(query => 'select 1'))", "trino", "query"),
    ("SELECT pg_read_file('/etc/passwd')", "", "pg_read_file"),
])  # fmt: skip
def test_denied_functions(sql, dialect, name):
    out = check(sql, dialect)
    assert not out.passed and out.layer == 1 and out.code == "sql_forbidden_function", out
    assert name in out.reason


def test_duckdb_file_in_from_is_refused():
    out = check("SELECT * FROM '/etc/passwd.csv'", "duckdb")
    assert not out.passed and out.code == "sql_forbidden_function"


def test_functions_are_denied_per_dialect():
    assert check("SELECT glob('a*', name) FROM customers", "sqlite").passed  # SQLite's own GLOB
    assert not check("SELECT * FROM glob('*')", "duckdb").passed


LEGIT = [
    "SELECT city, COUNT(*) AS n FROM customers GROUP BY city ORDER BY n DESC",
    "SELECT id, SUM(amount) OVER (PARTITION BY customer_id ORDER BY created_at) AS running FROM orders",
    "SELECT id, ROW_NUMBER() OVER (ORDER BY amount DESC) AS r FROM orders",
    "WITH t AS (SELECT customer_id, SUM(amount) AS s FROM orders GROUP BY customer_id) SELECT * FROM t WHERE s > 1",
    "SELECT city FROM customers UNION ALL SELECT city FROM customers",  # ClickHouse wants ALL or DISTINCT
    "SELECT c.name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)",
    "SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id",
    "SELECT o.id FROM orders o, customers c WHERE o.customer_id = c.id",
    "SELECT o.id FROM orders o LEFT JOIN customers c USING (id)",
    "SELECT * FROM (SELECT AVG(amount) AS a FROM orders) avg_t CROSS JOIN customers",
    "SELECT * FROM customers CROSS JOIN (VALUES (1), (2)) AS v(x)",
    "SELECT * FROM customers CROSS JOIN (SELECT id FROM orders LIMIT 10) AS top",
    "SELECT CASE WHEN amount > 5 THEN 'big' ELSE 'small' END AS size, COUNT(*) FROM orders GROUP BY 1",
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("sql", LEGIT)
def test_legitimate_queries_pass_in_every_dialect(sql, dialect, catalog):
    out = check(sql, dialect, catalog)
    assert out.passed, (dialect, out)


@pytest.mark.parametrize("sql, dialect", [
    ("SELECT strftime('%Y-%m', created_at) AS m, SUM(amount) FROM orders GROUP BY m", "sqlite"),
    ("SELECT date('now', '-7 day')", "sqlite"),
    ("SELECT date_trunc('month', created_at::timestamp) AS m, SUM(amount) FROM orders GROUP BY 1", "postgres"),
    ("SELECT created_at::date - INTERVAL '7 days' FROM orders", "postgres"),
    ("SELECT DATE_FORMAT(created_at, '%Y-%m') m FROM orders WHERE created_at > DATE_SUB(NOW(), INTERVAL 7 DAY)", "mysql"),
    ("SELECT date_trunc('week', CAST(created_at AS DATE)) FROM orders", "duckdb"),
    ("SELECT toStartOfMonth(toDate(created_at)) AS m, sum(amount) FROM orders GROUP BY m", "clickhouse"),
    ("SELECT date_add('day', -7, current_date), amount FROM orders", "trino"),
    ("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 10) SELECT x FROM n", "sqlite"),
    ("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT 10) SELECT x FROM n", "postgres"),
    ("SELECT key, value FROM json_each('[1, 2]')", "sqlite"),
    ("SELECT * FROM generate_series(1, 10) AS g(x)", "postgres"),
    ("VALUES (1, 'a'), (2, 'b')", "postgres"),
])  # fmt: skip
def test_dialect_specific_reads_pass(sql, dialect, catalog):
    out = check(sql, dialect, catalog)
    assert out.passed, out


# ---- layer 2: names and case rules --------------------------------------------------------
def test_unknown_names_hint_the_closest(catalog):
    out = check("SELECT amout FROM orders", "postgres", catalog)
    assert out.layer == 2 and out.code == "sql_unknown_column" and "orders.amount" in out.hint_for_model
    out = check("SELECT * FROM customer", "duckdb", catalog)
    assert out.code == "sql_unknown_table" and "customers" in out.hint_for_model


def test_case_rules(catalog):
    assert check('SELECT "AMOUNT" FROM orders', "mysql", catalog).passed  # MySQL: column names ignore case
    out = check('SELECT "AMOUNT" FROM orders', "postgres", catalog)  # PostgreSQL: quoted = exact
    assert out.code == "sql_unknown_column" and "amount" in out.hint_for_model
    assert check("SELECT AMOUNT FROM ORDERS", "postgres", catalog).passed  # unquoted folds to lower case
    assert check('SELECT "Amount" FROM orders', "sqlite", catalog).passed
    out = check("SELECT Amount FROM orders", "clickhouse", catalog)  # ClickHouse: always exact
    assert out.code == "sql_unknown_column"


# ---- layer 2: access policy ---------------------------------------------------------------
POLICY = GuardPolicy(deny_tables=["salaries"], deny_columns=["customers.phone"])
PG = Guard(POLICY, row_limit=None)


@pytest.mark.parametrize("sql", [
    "SELECT phone FROM customers",
    "SELECT c.phone FROM customers c",
    "SELECT name FROM customers WHERE phone LIKE '138%'",
    "SELECT name FROM customers ORDER BY phone",
    "SELECT COUNT(DISTINCT phone) FROM customers",
    "SELECT o.id FROM orders o JOIN customers c ON c.phone = o.created_at",
    "SELECT upper(substr(PHONE, 1, 3)) FROM customers",
    "SELECT x FROM (SELECT phone AS x FROM customers) t",
    "SELECT id FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE phone = '1')",
    "SELECT row_to_json(c) FROM customers c",
])  # fmt: skip
def test_denied_column_anywhere(sql, catalog):
    out = check(sql, "postgres", catalog, PG)
    assert not out.passed and out.layer == 2 and out.code == "sql_column_denied", out
    assert "phone" in out.reason.lower() or "*" in out.reason


def test_denied_table(catalog):
    out = check("SELECT * FROM salaries", "sqlite", catalog, PG)
    assert out.layer == 2 and out.code == "sql_table_denied" and "salaries" in out.reason
    out = check("WITH s AS (SELECT * FROM salaries) SELECT 1", "sqlite", catalog, PG)
    assert out.code == "sql_table_denied"


def test_hints_never_suggest_denied_names(catalog):
    out = check("SELECT phon FROM customers", "sqlite", catalog, PG)
    assert out.code == "sql_unknown_column" and "phone" not in out.hint_for_model
    out = check("SELECT * FROM salary", "sqlite", catalog, PG)
    assert out.code == "sql_unknown_table" and "salaries" not in out.hint_for_model


def test_allow_list(catalog):
    guard = Guard(GuardPolicy(allow_tables=["orders"]), row_limit=None)
    assert check("SELECT id FROM orders", "sqlite", catalog, guard).passed
    assert check("SELECT name FROM customers", "sqlite", catalog, guard).code == "sql_table_denied"
    assert check("SELECT name FROM sqlite_master", "sqlite", catalog, guard).code == "sql_system_table"


def test_star_is_expanded_to_allowed_columns(catalog, tmp_path):
    out = check("SELECT * FROM customers WHERE id < 3", "sqlite", catalog, PG)
    assert out.passed and "phone" not in out.sql.lower() and "expanded" in out.reason
    for col in ("id", "name", "city"):
        assert col in out.sql
    out = check("SELECT o.id, c.* FROM orders o JOIN customers c ON c.id = o.customer_id", "sqlite", catalog, PG)
    assert out.passed and "phone" not in out.sql.lower() and "amount" not in out.sql
    out = check("SELECT * FROM (SELECT * FROM customers) t", "sqlite", catalog, PG)
    assert out.passed and "phone" not in out.sql.lower()
    assert check("SELECT * FROM orders", "sqlite", catalog, PG).sql == "SELECT * FROM orders"  # nothing denied there


def test_star_expansion_impossible_is_refused(catalog):
    out = check("SELECT * FROM customers", "sqlite", None, PG)  # no catalog: the columns are unknown
    assert not out.passed and out.code == "sql_star_not_expandable"
    out = check("SELECT * FROM customers JOIN orders USING (id)", "sqlite", catalog, PG)
    assert out.code == "sql_star_not_expandable"


def test_expanded_sql_runs_and_hides_the_column(catalog, tmp_path):
    guard = Guard(POLICY, row_limit=5)
    out = guard.check("SELECT * FROM customers", dialect="sqlite", catalog=catalog)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE customers (id INTEGER, name TEXT, city TEXT, phone TEXT)")
    conn.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)", [(i, "n", "c", "138") for i in range(9)])
    cursor = conn.execute(out.sql)
    assert [d[0] for d in cursor.description] == ["id", "name", "city"] and len(cursor.fetchall()) == 5


def test_policy_round_trip_and_validation():
    p = GuardPolicy.from_dict({"deny_columns": ["Customers.Phone", "customers.phone"], "deny_tables": ["x"]})
    assert p.to_dict() == {"allow_tables": [], "deny_tables": ["x"], "deny_columns": ["Customers.Phone"]}
    assert p.denied_columns("CUSTOMERS") == {"phone"}
    with pytest.raises(ValueError):
        GuardPolicy(deny_columns=["phone"])


# ---- layer 3: shape and limits ------------------------------------------------------------
@pytest.mark.parametrize("sql", [
    "SELECT * FROM orders, customers",
    "SELECT * FROM orders CROSS JOIN customers",
    "SELECT COUNT(*) FROM orders o JOIN customers c",
    "SELECT * FROM orders o, customers c WHERE o.amount > 1 AND c.city = 'x'",
    "SELECT * FROM orders o JOIN customers c ON o.amount > 1",
    "SELECT * FROM orders a JOIN orders b ON a.id = a.customer_id",
    "SELECT * FROM orders o JOIN customers c ON c.id = o.customer_id, customers d",
])  # fmt: skip
def test_cartesian_products_refused(sql, catalog):
    out = check(sql, "sqlite", catalog)
    assert not out.passed and out.layer == 3 and out.code == "sql_cartesian_product", out
    assert "join" in out.hint_for_model.lower()


def test_unbounded_recursion_refused():
    out = check("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n")
    assert not out.passed and out.layer == 3 and out.code == "sql_unbounded_recursion"
    out = check("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE 1 = 1) SELECT x FROM n")
    assert out.code == "sql_unbounded_recursion"


def test_row_limit_with_check():
    guard = Guard(row_limit=50)
    assert guard.check("SELECT 1", dialect="sqlite").sql == "SELECT 1 LIMIT 50"
    assert guard.check("select 1 limit 9999", dialect="postgres").sql == "select 1 limit 50"


def test_outcome_layers_are_ordered(catalog):
    # a statement-class problem wins over an unknown table; an unknown table over a cartesian product
    assert check("DELETE FROM nope", "sqlite", catalog).layer == 1
    assert check("SELECT * FROM nope, orders", "sqlite", catalog).layer == 2


@pytest.mark.parametrize("dialect", ["mysql", "sqlite", "postgres"])
@pytest.mark.parametrize("sql", [
    "SELECT name FROM singer /*! UNION SELECT user FROM mysql.user */",
    "SELECT name FROM singer /*M!100000 UNION SELECT 1 */",
    "SELECT name /*!50000 , password */ FROM singer",
])
def test_mysql_executable_comments_are_refused(sql, dialect):
    """MySQL and MariaDB run the text of /*! */ comments: what the parser sees as a comment is code there."""
    out = check(sql, dialect)
    assert not out.passed and out.layer == 1 and out.code == "sql_executable_comment", out


def test_ordinary_comments_and_literals_that_look_alike_pass():
    assert check("SELECT name /* the singer's name */ FROM singer -- /*! not code after -- */", "mysql").passed
    assert check("SELECT name FROM singer WHERE name = '/*! text */'", "mysql").passed


def test_a_dash_dash_without_a_blank_is_code_on_mysql_and_a_comment_elsewhere():
    """MySQL reads `--+0` as minus minus plus zero: the UNION the parser took for a comment would run."""
    sql = "SELECT name FROM singer WHERE singer_id = 1 --+0 UNION SELECT user FROM mysql.user"
    out = check(sql, "mysql")
    assert not out.passed and out.layer == 1 and out.code == "sql_executable_comment", out
    assert check(sql, "postgres").passed  # a real comment there: only the first line runs
    assert check("SELECT name FROM singer -- the names\n", "mysql").passed  # a blank after --: a comment
    assert check("SELECT '--x' AS name FROM singer", "mysql").passed  # inside a string


@pytest.mark.parametrize("sql, dialect, code", [
    ("SELECT * FROM otherdb.orders", "mysql", "sql_outside_datasource"),
    ("SELECT * FROM spark_catalog.other.orders", "spark", "sql_outside_datasource"),
    ("SELECT * FROM parquet.`/etc/data`", "spark", "sql_forbidden_function"),
    ("SELECT _metadata.file_path FROM orders", "spark", "sql_system_table"),
    ("SELECT TRANSFORM(id) USING 'id' AS (x) FROM orders", "spark", "sql_not_read_only"),
])
def test_other_databases_engine_metadata_and_programs_are_refused(sql, dialect, code):
    out = check(sql, dialect)
    assert not out.passed and out.code == code, out
    assert check("SELECT * FROM public.orders", "postgres").passed  # the datasource's own schema
    assert check("SELECT * FROM main.orders", "sqlite").passed
    assert check("SELECT transform(array(1, 2), x -> x + 1) AS t FROM orders", "spark").passed  # the array function
