import sqlite3

import pytest

from wenshu.guard import Guard, SQLValidator, ValidationOutcome, sqlglot_dialect
from wenshu.knowledge.introspect import load_catalog


@pytest.fixture
def catalog(tmp_path):
    path = tmp_path / "shop.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
        CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id),
                             city TEXT, amount REAL, status TEXT, created_at TEXT);
        CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER, product TEXT, qty INTEGER, price REAL);
        INSERT INTO customers VALUES (1, 'Ann', 'Beijing'), (2, 'Bo', 'Shanghai');
        INSERT INTO orders VALUES (1, 1, 'Beijing', 10.5, 'paid', '2024-01-02'), (2, 2, 'Shanghai', 3, 'new', '2024-02-03');
        -- comments in the sidecar tables the catalog reads for SQLite
        CREATE TABLE _wenshu_tables (table_name TEXT PRIMARY KEY, comment TEXT);
        CREATE TABLE _wenshu_columns (table_name TEXT, column_name TEXT, comment TEXT, enum_json TEXT);
        INSERT INTO _wenshu_tables VALUES ('customers', 'Customers'), ('orders', 'Orders'), ('order_items', 'Order lines');
        """
    )
    conn.close()
    return load_catalog("shop", f"sqlite:///{path}")


V = Guard()


def check(sql, dialect="sqlite", catalog=None, row_limit=None) -> ValidationOutcome:
    return V.validate(sql, dialect=dialect, catalog=catalog, row_limit=row_limit)


def test_protocol_and_to_dict():
    validator: SQLValidator = V
    out = validator.validate("SELECT 1", dialect="sqlite")
    assert out.passed and out.code == "ok" and out.layer == 0
    assert out.sql == "SELECT 1"
    assert set(out.to_dict()) == {"passed", "layer", "code", "reason", "hint_for_model", "sql"}


@pytest.mark.parametrize(
    "name, expected",
    [("sqlite", "sqlite"), ("postgresql", "postgres"), ("mysql", "mysql"), ("mariadb", "mysql"),
     ("duckdb", "duckdb"), ("clickhouse", "clickhouse"), ("trino", "trino"), ("postgresql+psycopg", "postgres"),
     ("no-such-engine", "")],
)  # fmt: skip
def test_dialect_mapping(name, expected):
    assert sqlglot_dialect(name) == expected


@pytest.mark.parametrize("sql", ["", "   ", "-- only a comment", "/* nothing */"])
def test_empty(sql):
    out = check(sql)
    assert not out.passed and out.code == "sql_empty" and out.layer == 1


@pytest.mark.parametrize("sql", ["SELEC * FROM orders", "SELECT * FRM orders", "SELECT (a FROM t", "SELECT 'abc"])
def test_parse_error(sql):
    out = check(sql)
    assert not out.passed and out.code == "sql_parse_error" and out.layer == 1
    assert "could not be parsed" in out.reason and out.hint_for_model


@pytest.mark.parametrize(
    "sql, dialect",
    [
        ("DELETE FROM orders", "sqlite"),
        ("/* looks harmless */ DELETE FROM orders WHERE id = 1", "sqlite"),
        ("UPDATE orders SET amount = 0", "sqlite"),
        ("INSERT INTO orders (id) VALUES (9)", "sqlite"),
        ("DROP TABLE orders", "sqlite"),
        ("CREATE TABLE x AS SELECT 1", "sqlite"),
        ("ALTER TABLE orders ADD COLUMN x INT", "sqlite"),
        ("ATTACH DATABASE 'other.db' AS other", "sqlite"),
        ("PRAGMA writable_schema = ON", "sqlite"),
        ("WITH x AS (DELETE FROM orders RETURNING *) SELECT * FROM x", "postgres"),
        ("WITH x AS (SELECT 1) DELETE FROM orders", "sqlite"),
        ("SELECT * INTO orders_copy FROM orders", "postgres"),
        ("SELECT * FROM orders FOR UPDATE", "postgres"),
        ("TRUNCATE TABLE orders", "mysql"),
    ],
)
def test_not_read_only(sql, dialect):
    out = check(sql, dialect)
    assert not out.passed and out.code == "sql_not_read_only" and out.layer == 1
    assert "read" in out.hint_for_model.lower()


def test_select_into_reason():
    out = check("SELECT * INTO orders_copy FROM orders", "postgres")
    assert "INTO" in out.reason


def test_side_effect_functions():
    out = check("SELECT load_extension('/tmp/evil.so')")
    assert not out.passed and out.code == "sql_forbidden_function" and "load_extension" in out.reason
    assert not check("SELECT pg_sleep(100)", "postgres").passed


@pytest.mark.parametrize("sql", ["SELECT 1; DROP TABLE orders", "SELECT 1; SELECT 2;", "SELECT 1;\nDELETE FROM orders"])
def test_stacked_statements(sql):
    out = check(sql)
    assert not out.passed and out.code == "sql_multiple_statements" and out.layer == 1


def test_comments_do_not_hide_or_add_statements():
    assert check("SELECT 1 -- ; DROP TABLE orders").passed
    assert check("SELECT 1 /* ; DROP TABLE orders */").passed
    assert check("SELECT 1;").passed


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1 UNION SELECT 2",
        "SELECT city FROM orders INTERSECT SELECT city FROM customers",
        "SELECT city FROM orders EXCEPT SELECT city FROM customers",
        "WITH t AS (SELECT 1 AS x) SELECT x FROM t",
        "VALUES (1), (2)",
    ],
)
def test_read_queries_pass(sql, catalog):
    assert check(sql, catalog=catalog).passed


def test_unknown_table_with_suggestion(catalog):
    out = check("SELECT * FROM `order`", "mysql", catalog=catalog)
    assert not out.passed and out.code == "sql_unknown_table" and out.layer == 2
    assert out.hint_for_model == "Table `order` does not exist. Use one of: orders, order_items."
    assert "orders" in out.reason


def test_unknown_table_without_close_match_lists_tables(catalog):
    out = check("SELECT * FROM zzz", catalog=catalog)
    assert out.code == "sql_unknown_table"
    assert "customers" in out.hint_for_model and "orders" in out.hint_for_model


def test_unknown_unqualified_column_with_suggestion(catalog):
    out = check("SELECT amout FROM orders", catalog=catalog)
    assert not out.passed and out.code == "sql_unknown_column" and out.layer == 2
    assert "amout" in out.reason and "orders.amount" in out.hint_for_model


def test_unknown_qualified_column_with_suggestion(catalog):
    out = check("SELECT o.id, o.custmer_id FROM orders o", catalog=catalog)
    assert out.code == "sql_unknown_column"
    assert "customer_id" in out.hint_for_model and "`orders`" in out.hint_for_model


def test_unknown_column_in_where_and_join(catalog):
    out = check("SELECT c.name FROM customers c JOIN orders o ON o.customer = c.id", catalog=catalog)
    assert out.code == "sql_unknown_column" and "customer_id" in out.hint_for_model


@pytest.mark.parametrize(
    "sql, wrong, right",
    [
        ("WITH t AS (SELECT citty FROM orders) SELECT * FROM t", "citty", "orders.city"),
        ("SELECT * FROM orders WHERE customer_id IN (SELECT idd FROM customers)", "idd", "customers.id"),
        ("SELECT city FROM orders GROUP BY city HAVING SUM(amnt) > 1", "amnt", "orders.amount"),
        ("SELECT city FROM orders ORDER BY amont", "amont", "orders.amount"),
    ],
)
def test_unknown_column_in_nested_positions(sql, wrong, right, catalog):
    out = check(sql, catalog=catalog)
    assert out.code == "sql_unknown_column" and wrong in out.reason and right in out.hint_for_model


def test_unknown_column_from_derived_table(catalog):
    out = check("SELECT tot FROM (SELECT SUM(amount) AS total FROM orders)", catalog=catalog)
    assert out.code == "sql_unknown_column" and "total" in out.hint_for_model


@pytest.mark.parametrize(
    "sql",
    [
        # output aliases used in WHERE / GROUP BY / ORDER BY (SQLite allows all three)
        "SELECT c.name AS cname FROM customers c WHERE cname LIKE 'A%' ORDER BY cname",
        "SELECT strftime('%Y-%m', created_at) AS month, SUM(amount) AS total FROM orders GROUP BY month ORDER BY total DESC",
        # CTEs, including their own column lists
        "WITH t AS (SELECT city, SUM(amount) AS s FROM orders GROUP BY city) SELECT city, s FROM t WHERE s > 1",
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 5) SELECT x FROM n",
        "WITH orders AS (SELECT 1 AS fake) SELECT fake FROM orders",
        # derived tables and correlated subqueries
        "SELECT sub.total FROM (SELECT SUM(amount) AS total FROM orders) sub",
        "SELECT city, n FROM (SELECT city, COUNT(*) n FROM orders GROUP BY city) WHERE n > 1",
        "SELECT c.name, (SELECT COUNT(*) FROM orders o WHERE o.customer_id = c.id) AS n FROM customers c",
        "SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM orders WHERE customer_id = c.id AND amount > 5)",
        "SELECT * FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE city = 'Beijing')",
        "SELECT v.a FROM (VALUES (1, 2)) AS v(a, b)",
        # joins, USING, stars, implicit columns, table functions
        "SELECT o.city, COUNT(DISTINCT i.product) FROM orders o LEFT JOIN order_items i ON i.order_id = o.id GROUP BY o.city",
        "SELECT o.city FROM orders AS o JOIN customers USING (city)",
        "SELECT o.*, c.* FROM orders o JOIN customers c ON c.id = o.customer_id",
        "SELECT rowid, city FROM orders",
        "SELECT key, value FROM json_each('[1, 2]')",
        "SELECT Orders.Amount FROM ORDERS",
        'SELECT * FROM orders WHERE city = "Beijing"',
        "SELECT city, RANK() OVER (PARTITION BY city ORDER BY amount DESC) AS r FROM orders",
        "SELECT CASE WHEN amount > 5 THEN 'big' ELSE 'small' END AS size, COUNT(*) FROM orders GROUP BY size",
    ],
)
def test_valid_queries_are_not_refused(sql, catalog):
    out = check(sql, catalog=catalog)
    assert out.passed, out.reason


def test_valid_postgres_and_mysql_queries_are_not_refused(catalog):
    pg = "SELECT date_trunc('month', created_at::timestamp) AS m, SUM(amount) FROM orders GROUP BY 1 ORDER BY m"
    assert check(pg, "postgresql", catalog=catalog).passed
    my = "SELECT city, DATE_FORMAT(created_at, '%Y-%m') m FROM orders WHERE created_at > DATE_SUB(NOW(), INTERVAL 7 DAY)"
    assert check(my, "mysql", catalog=catalog).passed


def test_limit_added(catalog):
    out = check("SELECT city FROM orders", catalog=catalog, row_limit=100)
    assert out.passed and out.sql == "SELECT city FROM orders LIMIT 100"
    assert "LIMIT 100" in out.reason


def test_limit_rewrite_keeps_the_model_formatting(tmp_path):
    out = check("select city\nfrom orders  o -- every order\n;", row_limit=100)
    assert out.sql == "select city\nfrom orders  o -- every order\nLIMIT 100"
    assert check("select city from orders limit 5000 offset 10", row_limit=100).sql == (
        "select city from orders limit 100 offset 10"
    )
    conn = sqlite3.connect(tmp_path / "x.db")
    conn.execute("CREATE TABLE orders (city TEXT)")
    conn.executemany("INSERT INTO orders VALUES (?)", [("a",)] * 150)
    assert len(conn.execute(out.sql).fetchall()) == 100  # the comment did not swallow the LIMIT


def test_mysql_offset_comma_limit_is_capped():
    out = check("SELECT city FROM orders LIMIT 10, 5000", "mysql", row_limit=100)
    assert out.passed and "LIMIT 100" in out.sql and "5000" not in out.sql and "10" in out.sql


def test_limit_capped_and_offset_kept():
    out = check("SELECT city FROM orders LIMIT 5000 OFFSET 10", row_limit=1000)
    assert out.passed and out.sql == "SELECT city FROM orders LIMIT 1000 OFFSET 10"
    assert "5000" in out.reason


def test_negative_limit_is_capped():
    # In SQLite a negative LIMIT means "no limit".
    assert check("SELECT city FROM orders LIMIT -1", row_limit=50).sql == "SELECT city FROM orders LIMIT 50"


def test_smaller_limit_keeps_original_text():
    sql = "select city  from orders limit 10"
    out = check(sql, row_limit=1000)
    assert out.passed and out.sql == sql and out.reason == ""


def test_limit_on_union_and_values_and_fetch():
    assert check("SELECT 1 UNION SELECT 2", row_limit=5).sql.endswith("LIMIT 5")
    assert check("VALUES (1), (2)", row_limit=5).sql.endswith("LIMIT 5")
    out = check("SELECT * FROM orders FETCH FIRST 5000 ROWS ONLY", "postgresql", row_limit=100)
    assert out.passed and "100" in out.sql and "5000" not in out.sql


def test_no_row_limit_keeps_text():
    assert check("SELECT * FROM orders", row_limit=None).sql == "SELECT * FROM orders"


def test_rewritten_sql_runs_on_sqlite(catalog, tmp_path):
    out = check("SELECT city, SUM(amount) AS s FROM orders GROUP BY city ORDER BY s DESC", catalog=catalog, row_limit=1)
    rows = sqlite3.connect(tmp_path / "shop.db").execute(out.sql).fetchall()
    assert rows == [("Beijing", 10.5)]
