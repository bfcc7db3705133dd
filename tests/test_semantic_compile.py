"""Query plans compiled to SQL from the demo's semantic model, run on real SQLite: results match
hand-written SQL. The same plans on every other engine: test_engine_demo.py."""

from __future__ import annotations

import sqlite3
from decimal import Decimal

import pytest

from demo_subset import LAST_MONTH, WINDOW, YEAR_AGO, demo_tables
from engine_data import load_sql
from wenshu.engines.execute import execute_readonly
from wenshu.semantic.compile import PlanNotCompilable, compile_plan
from wenshu.semantic.library import bundled_text
from wenshu.semantic.model import parse_model
from wenshu.semantic.plan import QueryPlan, Window

MODEL = parse_model(bundled_text("demo"))


@pytest.fixture(scope="module")
def sqlite_url(demo_db_file, tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("semantic") / "shop.sqlite"
    return load_sql(f"sqlite:///{path}", demo_tables(demo_db_file))


def run(url: str, plan: dict, dialect: str = "sqlite", lang: str = "zh") -> tuple[list[str], list[tuple]]:
    """Compile and run through the product's read-only execution (layer 4 of the guard)."""
    compiled = compile_plan(MODEL, QueryPlan.model_validate(plan), dialect, lang)
    result = execute_readonly(url, compiled.sql, row_limit=5000)
    assert result.columns == compiled.columns
    return compiled.columns, [tuple(float(v) if isinstance(v, Decimal) else v for v in r) for r in result.rows]


def gold(url: str, sql: str) -> list[tuple]:
    with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
        return conn.execute(sql).fetchall()


def near(a, b) -> bool:
    return a == b or (isinstance(a, float | int) and isinstance(b, float | int) and abs(a - b) < 0.011)


def same(rows, expected) -> bool:
    return len(rows) == len(expected) and all(len(r) == len(e) and all(near(x, y) for x, y in zip(r, e))
                                              for r, e in zip(rows, expected))


PAID_LAST_MONTH = f"o.status = 1 AND o.order_date >= '{WINDOW['start']}' AND o.order_date < '{WINDOW['end']}'"


def test_gmv_by_region_is_summed_at_order_grain_and_its_shares_add_up_to_100(sqlite_url):
    cols, rows = run(sqlite_url, {"measures": ["gmv"], "dimensions": ["region"], "window": WINDOW, "share": True,
                                  "order": "desc"})
    assert cols == ["大区", "销售额", "占比%"]
    expected = gold(sqlite_url, f"""
        SELECT r.region_name, ROUND(SUM(o.pay_amount), 2) FROM orders o JOIN cities c ON c.city_id = o.city_id
        JOIN regions r ON r.region_id = c.region_id WHERE {PAID_LAST_MONTH} GROUP BY 1 ORDER BY 2 DESC""")
    assert same([r[:2] for r in rows], expected)
    assert abs(sum(r[2] for r in rows) - 100) < 0.1  # a share is a share of the total: never 214 %


def test_shares_with_a_member_left_out_are_shares_of_the_rest_and_named_members_of_every_member(sqlite_url):
    plan = {"measures": ["paid_orders"], "dimensions": ["channel"], "window": WINDOW, "share": True}
    left_out = [{"dimension": "channel", "op": "not_in", "values": ["mini_program"]}]
    _, rows = run(sqlite_url, plan | {"filters": left_out})
    assert len(rows) == 2 and abs(sum(r[2] for r in rows) - 100) < 0.1  # "去掉小程序": the two others' shares
    _, rows = run(sqlite_url, plan | {"filters": [{"dimension": "channel", "values": ["app", "web"]}]})
    assert len(rows) == 2 and sum(r[2] for r in rows) < 99.9  # "app和网页各占多少": of every channel's orders


def test_measures_on_different_grains_meet_on_the_dimension_without_fan_out(sqlite_url):
    cols, rows = run(sqlite_url, {"measures": ["gmv", "units_sold"], "dimensions": ["city"], "window": WINDOW,
                                  "order": "desc", "limit": 5})
    assert cols == ["城市", "销售额", "销量"]
    expected = gold(sqlite_url, f"""
        SELECT c.city_name, ROUND(SUM(o.pay_amount), 2),
               (SELECT SUM(i.quantity) FROM order_items i JOIN orders o2 ON o2.order_id = i.order_id
                WHERE o2.city_id = c.city_id AND {PAID_LAST_MONTH.replace('o.', 'o2.')})
        FROM orders o JOIN cities c ON c.city_id = o.city_id WHERE {PAID_LAST_MONTH}
        GROUP BY c.city_id ORDER BY 2 DESC LIMIT 5""")
    assert same(rows, expected)


def test_a_dimension_across_a_one_to_many_join_is_refused_and_the_item_measure_answers(sqlite_url):
    with pytest.raises(PlanNotCompilable) as err:
        run(sqlite_url, {"measures": ["gmv"], "dimensions": ["category"]})
    assert "repeat the measure's rows" in err.value.en and err.value.code == "plan_not_compilable"
    cols, rows = run(sqlite_url, {"measures": ["item_sales", "gross_margin"], "dimensions": ["category"],
                                  "window": WINDOW, "order": "desc"}, lang="en")
    assert cols == ["category", "product sales", "gross margin"]
    expected = gold(sqlite_url, f"""
        SELECT cat.category_name, ROUND(SUM(i.quantity * i.unit_price), 2),
               ROUND(100.0 * SUM((i.unit_price - p.cost_price) * i.quantity) / SUM(i.quantity * i.unit_price), 2)
        FROM order_items i JOIN orders o ON o.order_id = i.order_id JOIN products p ON p.product_id = i.product_id
        JOIN categories cat ON cat.category_id = p.category_id WHERE {PAID_LAST_MONTH} GROUP BY 1 ORDER BY 2 DESC""")
    assert same(rows, expected)


def test_ratios_filters_by_label_and_coded_dimensions(sqlite_url):
    _, rows = run(sqlite_url, {"measures": ["aov", "refund_rate"], "window": WINDOW,
                               "filters": [{"dimension": "channel", "values": ["小程序"]}]})
    expected = gold(sqlite_url, f"""
        SELECT ROUND(1.0 * SUM(CASE WHEN status = 1 THEN pay_amount END) / SUM(status = 1), 2),
               ROUND(100.0 * SUM(status = 3) / SUM(status IN (1, 3)), 2)
        FROM orders WHERE channel = 'mini_program' AND order_date >= '{WINDOW['start']}'
        AND order_date < '{WINDOW['end']}'""")
    assert same(rows, expected)
    cols, rows = run(sqlite_url, {"measures": ["all_orders"], "dimensions": ["order_status"], "window": WINDOW})
    assert cols == ["订单状态", "全部订单数"] and {r[0] for r in rows} <= {"待支付", "已支付", "已取消", "已退款"}


def test_a_comparison_puts_the_earlier_period_and_the_growth_side_by_side(sqlite_url):
    cols, rows = run(sqlite_url, {"measures": ["gmv"], "window": WINDOW, "compare": "yoy"})
    assert cols == ["销售额", "销售额（去年同期）", "销售额同比%"]
    earlier = Window.model_validate(WINDOW).shifted("yoy")
    (now,), (then,) = (gold(sqlite_url, f"SELECT ROUND(SUM(pay_amount), 2) FROM orders WHERE status = 1 AND "
                                         f"order_date >= '{w[0]}' AND order_date < '{w[1]}'")[0]
                       for w in ((WINDOW["start"], WINDOW["end"]), (earlier.start, earlier.end)))
    assert same(rows, [(now, then, round(100 * (now - then) / then, 2))])
    assert Window.model_validate(WINDOW).shifted("previous").end == LAST_MONTH  # 环比: the month before


def test_a_trend_lines_up_measures_of_different_tables_by_period(sqlite_url):
    cols, rows = run(sqlite_url, {"measures": ["paid_orders", "uv"], "grain": "month", "window": YEAR_AGO})
    assert cols == ["月份", "订单量", "访客数"] and len(rows) == 12
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    traffic = dict(gold(sqlite_url, f"SELECT strftime('%Y-%m', stat_date), SUM(uv) FROM daily_traffic WHERE "
                                    f"stat_date >= '{YEAR_AGO['start']}' AND stat_date < '{YEAR_AGO['end']}' GROUP BY 1"))
    assert all(traffic[r[0]] == r[2] for r in rows)


def test_a_daily_average_is_the_measure_per_day_averaged_over_the_days(sqlite_url):
    cols, rows = run(sqlite_url, {"measures": ["gmv", "aov"], "dimensions": ["region"], "window": WINDOW, "per": "day",
                                  "order": "desc"})
    assert cols == ["大区", "日均销售额", "客单价"]
    expected = gold(sqlite_url, f"""
        SELECT region_name, ROUND(AVG(v), 2) FROM (SELECT r.region_name, o.order_date, SUM(o.pay_amount) AS v
        FROM orders o JOIN cities c ON c.city_id = o.city_id JOIN regions r ON r.region_id = c.region_id
        WHERE {PAID_LAST_MONTH} GROUP BY 1, 2) GROUP BY 1 ORDER BY 2 DESC""")
    assert same([r[:2] for r in rows], expected)


def test_a_dialect_without_an_adapter_is_refused_not_crashed():
    with pytest.raises(PlanNotCompilable) as err:
        compile_plan(MODEL, QueryPlan.model_validate({"measures": ["gmv"], "grain": "month"}), "trino")
    assert "trino" in err.value.en


def test_an_item_level_filter_keeps_orders_that_have_such_an_item_without_fan_out(sqlite_url):
    """Orders filtered by a category are the orders with an item of it (EXISTS), each counted once."""
    category = gold(sqlite_url, "SELECT category_name FROM categories ORDER BY category_id LIMIT 1")[0][0]
    cols, rows = run(sqlite_url, {"measures": ["paid_orders", "buyers"], "window": WINDOW,
                                  "filters": [{"dimension": "category", "values": [category]}]})
    expected = gold(sqlite_url, f"""
        SELECT COUNT(DISTINCT o.order_id), COUNT(DISTINCT o.customer_id) FROM orders o
        JOIN order_items i ON i.order_id = o.order_id JOIN products p ON p.product_id = i.product_id
        JOIN categories cat ON cat.category_id = p.category_id WHERE cat.category_name = '{category}'
        AND {PAID_LAST_MONTH}""")
    assert cols == ["订单量", "下单客户数"] and same(rows, expected) and rows[0][0] > 0
    _, split = run(sqlite_url, {"measures": ["paid_orders"], "dimensions": ["category"], "window": WINDOW})
    assert [r[1] for r in split if r[0] == category] == [rows[0][0]]  # split: per category, the orders holding one
    with pytest.raises(PlanNotCompilable):  # shares of orders split so would not add up to 100 %
        compile_plan(MODEL, QueryPlan.model_validate({"measures": ["paid_orders"], "dimensions": ["category"],
                                                      "share": True}))


def test_a_rate_of_order_counts_split_by_category_counts_each_order_once_per_category(sqlite_url):
    cols, rows = run(sqlite_url, {"measures": ["refund_rate"], "dimensions": ["category"], "window": WINDOW})
    expected = gold(sqlite_url, f"""
        SELECT cat.category_name, ROUND(100.0 * COUNT(DISTINCT CASE WHEN o.status = 3 THEN o.order_id END)
               / COUNT(DISTINCT o.order_id), 2)
        FROM orders o JOIN order_items i ON i.order_id = o.order_id JOIN products p ON p.product_id = i.product_id
        JOIN categories cat ON cat.category_id = p.category_id
        WHERE o.status IN (1, 3) AND o.order_date >= '{WINDOW['start']}' AND o.order_date < '{WINDOW['end']}'
        GROUP BY cat.category_name""")
    assert cols == ["品类", "退款率"] and sorted(rows) == sorted(expected) and len(rows) > 3


def test_members_kept_by_a_bound_are_compared_with_the_period_before(sqlite_url):
    cols, rows = run(sqlite_url, {"measures": ["gmv"], "dimensions": ["city"], "window": WINDOW, "compare": "previous",
                                  "having": [{"dimension": "gmv", "op": "gt", "values": [1000]}]})
    _, alone = run(sqlite_url, {"measures": ["gmv"], "dimensions": ["city"], "window": WINDOW,
                                "having": [{"dimension": "gmv", "op": "gt", "values": [1000]}]})
    assert cols[-1].endswith("环比%") and sorted(r[:2] for r in rows) == sorted(alone)  # the bound is on this period


def test_the_share_of_a_filtered_part_answers_with_the_share_alone(sqlite_url):
    cols, rows = run(sqlite_url, {"measures": ["gmv"], "share": True, "window": WINDOW,
                                  "filters": [{"dimension": "member_level", "values": ["3"]}]})
    expected = gold(sqlite_url, f"""
        SELECT ROUND(100.0 * SUM(CASE WHEN cu.member_level = 3 THEN o.pay_amount ELSE 0 END) / SUM(o.pay_amount), 2)
        FROM orders o JOIN customers cu ON cu.customer_id = o.customer_id WHERE {PAID_LAST_MONTH}""")
    assert cols == ["占比%"] and same(rows, expected)


def test_a_ratio_across_tables_splits_by_conformed_dimensions(sqlite_url):
    """Paid orders (orders.channel) over visitors (daily_traffic.channel): each side splits by the channel
    column it reaches, and the two meet on the shared codes."""
    cols, rows = run(sqlite_url, {"measures": ["conversion_rate"], "dimensions": ["traffic_channel"],
                                  "window": WINDOW, "order": "desc"})
    expected = gold(sqlite_url, f"""
        SELECT t.channel, ROUND(100.0 * o.n / t.uv, 2) FROM
          (SELECT channel, SUM(uv) AS uv FROM daily_traffic WHERE stat_date >= '{WINDOW['start']}'
           AND stat_date < '{WINDOW['end']}' GROUP BY channel) t
          JOIN (SELECT channel, COUNT(*) AS n FROM orders o WHERE {PAID_LAST_MONTH} GROUP BY channel) o
          ON o.channel = t.channel ORDER BY 2 DESC""")
    assert cols == ["流量渠道", "转化率"] and same(rows, expected) and len(rows) == 3
