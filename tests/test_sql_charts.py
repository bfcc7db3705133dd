import datetime as dt
import json
import sqlite3

import pytest

from wenshu.engines.execute import execute_readonly
from wenshu.sql.charts import SCHEMA, choose_chart, infer_column_kinds


def enc(spec, channel):
    return spec["encoding"][channel]


@pytest.mark.parametrize(
    "columns, rows, kinds",
    [
        (["day", "n"], [["2024-01-01", 1], ["2024-01-02", 2]], ["temporal", "quantitative"]),
        (["m", "n"], [["2024-01", 1], ["2024-02", 2]], ["temporal", "quantitative"]),
        (["ts", "n"], [["2024-01-01 10:00:00", 1], ["2024-01-01 11:00", 2]], ["temporal", "quantitative"]),
        (["year", "n"], [[2022, 1], [2023, 2]], ["temporal", "quantitative"]),
        (["月份", "销售额"], [["2024年1月", 1.5], ["2024年2月", 2.5]], ["temporal", "quantitative"]),
        (["d"], [[dt.date(2024, 1, 1)]], ["temporal"]),
        (["city", "n"], [["A", 1], ["B", None]], ["nominal", "quantitative"]),
        (["user_id", "amount"], [[1, 2.0], [2, 3.0]], ["nominal", "quantitative"]),
        (["flag", "empty"], [[True, None], [False, None]], ["nominal", "nominal"]),
        (["zip", "code_text"], [["100080", "x"], ["200000", "y"]], ["nominal", "nominal"]),
        (["count", "year"], [[5, 1999.5], [6, 2000.5]], ["quantitative", "quantitative"]),
    ],
)
def test_infer_column_kinds(columns, rows, kinds):
    assert infer_column_kinds(columns, rows) == kinds


def test_line_for_time_series():
    rows = [["2024-01", 10], ["2024-02", 12], ["2024-03", 9]]
    spec = choose_chart(["month", "orders"], rows, title="Orders by month")
    assert spec["$schema"] == SCHEMA and spec["title"] == "Orders by month"
    assert spec["mark"]["type"] == "line"
    assert enc(spec, "x") == {"field": "month", "type": "temporal", "title": "month"}
    assert enc(spec, "y")["field"] == "orders" and enc(spec, "y")["type"] == "quantitative"
    assert spec["data"]["values"][0] == {"month": "2024-01", "orders": 10}
    json.dumps(spec)


def test_line_with_several_measures_is_folded():
    rows = [["2024-01-01", 10, 3], ["2024-01-02", 12, 4]]
    spec = choose_chart(["date", "revenue", "cost"], rows)
    assert spec["mark"]["type"] == "line"
    assert spec["transform"] == [{"fold": ["revenue", "cost"], "as": ["series", "value"]}]
    assert enc(spec, "color")["field"] == "series" and enc(spec, "y")["field"] == "value"


def test_line_with_category_series():
    rows = [["2024-01", "A", 1], ["2024-01", "B", 2], ["2024-02", "A", 3], ["2024-02", "B", 4]]
    spec = choose_chart(["month", "city", "n"], rows)
    assert spec["mark"]["type"] == "line" and enc(spec, "color")["field"] == "city"


def test_year_ints_are_ordinal_on_the_axis():
    spec = choose_chart(["year", "gmv"], [[2021, 1.0], [2022, 2.0], [2023, 3.0]])
    assert spec["mark"]["type"] == "line" and enc(spec, "x")["type"] == "ordinal"


def test_chinese_month_labels_keep_query_order():
    spec = choose_chart(["月份", "金额"], [["2024年1月", 1], ["2024年2月", 2]])
    assert spec["mark"]["type"] == "line"
    assert enc(spec, "x")["type"] == "ordinal" and enc(spec, "x")["sort"] is None


def test_bar_for_category_and_measure():
    rows = [["Beijing", 5], ["Shanghai", 7], ["Shenzhen", 1]]
    spec = choose_chart(["city", "orders"], rows)
    assert spec["mark"]["type"] == "bar"
    assert enc(spec, "x") == {"field": "city", "type": "nominal", "sort": "-y", "title": "city"}
    assert enc(spec, "y")["field"] == "orders"


def test_bar_is_horizontal_after_eight_categories():
    rows = [[f"c{i}", i] for i in range(9)]
    spec = choose_chart(["city", "orders"], rows)
    assert spec["mark"]["type"] == "bar"
    assert enc(spec, "y")["field"] == "city" and enc(spec, "y")["sort"] == "-x"
    assert enc(spec, "x")["field"] == "orders"


def test_no_bar_beyond_fifty_categories():
    assert choose_chart(["city", "orders"], [[f"c{i}", i] for i in range(51)]) is None
    assert choose_chart(["city", "orders"], [[f"c{i}", i] for i in range(50)]) is not None


def test_pie_for_share():
    rows = [["paid", 60], ["new", 30], ["refunded", 10]]
    spec = choose_chart(["status", "orders"], rows, query_type="share")
    assert spec["mark"]["type"] == "arc"
    assert enc(spec, "theta")["field"] == "orders" and enc(spec, "color")["field"] == "status"


def test_share_falls_back_to_bar():
    many = [[f"s{i}", i + 1] for i in range(9)]
    assert choose_chart(["status", "n"], many, query_type="share")["mark"]["type"] == "bar"
    negative = [["a", 5], ["b", -1]]
    assert choose_chart(["status", "n"], negative, query_type="share")["mark"]["type"] == "bar"


@pytest.mark.parametrize(
    "columns, rows",
    [
        (["total"], [[42]]),  # a single value
        (["city", "n"], [["A", 1]]),  # a single row
        (["orders", "revenue"], [[1, 2.0], [3, 4.0]]),  # measures without a dimension
        (["name", "city"], [["a", "b"], ["c", "d"]]),  # text only
        (["date", "note"], [["2024-01-01", "x"], ["2024-01-02", "y"]]),  # time without a measure
        (["city", "orders", "revenue"], [["A", 1, 2.0], ["B", 3, 4.0]]),  # category + two measures
        (["city", "n"], [["A", 1], ["A", 2]]),  # repeated categories
        (["date", "amount"], [["2024-01-01", 1], ["2024-01-01", 2]]),  # repeated time points
        ([], []),
    ],
)
def test_no_chart(columns, rows):
    assert choose_chart(columns, rows) is None


def test_odd_field_names_are_escaped_and_deduplicated():
    spec = choose_chart(["a.b", "SUM(x)"], [["p", 1], ["q", 2]])
    assert enc(spec, "x")["field"] == "a\\.b" and spec["data"]["values"][0] == {"a.b": "p", "SUM(x)": 1}
    spec = choose_chart(["n", "n"], [["p", 1], ["q", 2]])
    assert list(spec["data"]["values"][0]) == ["n", "n_2"]


def test_deterministic():
    rows = [["A", 3], ["B", 1]]
    assert choose_chart(["city", "n"], rows) == choose_chart(["city", "n"], rows)


def test_chart_from_real_query(tmp_path):
    path = tmp_path / "shop.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, created_at TEXT, city TEXT, amount REAL)")
    conn.executemany(
        "INSERT INTO orders (created_at, city, amount) VALUES (?, ?, ?)",
        [(f"2024-{m:02d}-{d:02d}", c, m * 10 + d) for m in (1, 2, 3) for d in (1, 15) for c in ("Beijing", "Shanghai")],
    )
    conn.commit()
    conn.close()
    url = f"sqlite:///{path}"
    monthly = execute_readonly(url, "SELECT strftime('%Y-%m', created_at) AS month, SUM(amount) AS total FROM orders GROUP BY 1 ORDER BY 1")
    assert choose_chart(monthly.columns, monthly.rows)["mark"]["type"] == "line"
    by_city = execute_readonly(url, "SELECT city, SUM(amount) AS total FROM orders GROUP BY city")
    assert choose_chart(by_city.columns, by_city.rows)["mark"]["type"] == "bar"
    assert choose_chart(by_city.columns, by_city.rows, query_type="share")["mark"]["type"] == "arc"
    single = execute_readonly(url, "SELECT COUNT(*) AS n FROM orders")
    assert choose_chart(single.columns, single.rows) is None
