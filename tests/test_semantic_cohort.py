"""New and existing customers (新客 / 老客) against the question's window: the demo's bundled model reads them as
a value of customer type (registered in the window, or before it), the compiler computes it from the
registration date against the plan's window, and the numbers agree with the same sums done by hand over the real
demo database. The count of new customers itself stays a measure. The questions are written here."""

from __future__ import annotations

import sqlite3

import pytest

from demo_reading import MODEL, edited, planned
from wenshu.semantic.compile import PlanNotCompilable, compile_plan


def by_registration(db: str, window, new: bool) -> tuple[float, int]:
    """Paid orders' amount and count in the window, of customers registered in it (`new`) or before it."""
    side = ">=" if new else "<"
    return sqlite3.connect(db).execute(
        "SELECT ROUND(SUM(o.pay_amount), 2), COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id "
        f"WHERE o.status = 1 AND o.order_date >= ? AND o.order_date < ? AND c.register_date {side} ?",
        (window.start.isoformat(), window.end.isoformat(), window.start.isoformat())).fetchone()


@pytest.mark.parametrize(("question", "code"), [
    ("上个月新客贡献了多少销售额", "1"),
    ("How much revenue did new customers bring in last month?", "1"),
    ("上个月新用户的销售额", "1"),  # 新用户 is also the count of new customers: beside another measure, a kind of them
    ("上个月老客户的销售额是多少", "0"),
])  # fmt: skip
def test_new_or_existing_customers_filter_the_measure_to_those_registered_in_or_before_the_window(
        question, code, demo_db_file):
    plan = planned(question)
    assert plan.measures == ["gmv"]
    assert [(f.dimension, f.values) for f in plan.filters] == [("customer_type", [code])]
    ((value,),) = sqlite3.connect(demo_db_file).execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall()
    assert value == pytest.approx(by_registration(demo_db_file, plan.window, code == "1")[0], abs=0.01)


def test_new_and_existing_customers_named_together_are_one_row_each_and_add_up(demo_db_file):
    plan = planned("上个月新客和老客的订单量分别是多少")
    assert plan.measures == ["paid_orders"] and plan.dimensions == ["customer_type"]
    rows = dict(sqlite3.connect(demo_db_file).execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall())
    assert rows == {"新客": by_registration(demo_db_file, plan.window, True)[1],
                    "老客": by_registration(demo_db_file, plan.window, False)[1]}


@pytest.mark.parametrize("question", ["上个月有多少新用户", "How many new customers signed up last month?"])
def test_the_count_of_new_customers_alone_stays_the_measure(question):
    plan = planned(question)
    assert plan.measures == ["new_customers"] and not plan.filters


@pytest.mark.parametrize("update", [{"window": None}, {"grain": "month"}, {"compare": "previous"}])
def test_new_customers_without_one_window_leave_the_question_to_free_sql(update):
    plan = planned("上个月新客贡献了多少销售额")
    with pytest.raises(PlanNotCompilable):
        compile_plan(MODEL, plan.model_copy(update=update), "sqlite", "zh")


def test_new_sign_ups_compared_with_the_month_before_are_the_count_not_a_kind_of_customer():
    plan = planned("上个月新注册的用户比再前一个月多还是少？")
    assert plan.measures == ["new_customers"] and plan.compare == "previous" and not plan.filters
    compile_plan(MODEL, plan, "sqlite", "zh")  # compiles: nothing asks for new customers per period


def test_a_follow_up_splits_by_new_and_existing_or_keeps_only_one_kind():
    before = {"measures": ["gmv"], "dimensions": ["region"], "window": {"start": "2026-11-01", "end": "2026-12-01"}}
    split = edited(before, "按新老客拆开")
    assert split.dimensions == ["region", "customer_type"] and not split.filters
    existing = edited(before, "那老客呢")
    assert existing.dimensions == ["region"] and [(f.dimension, f.values) for f in existing.filters] == [
        ("customer_type", ["0"])]


@pytest.mark.parametrize(("question", "measures", "filtered"), [
    ("只看新用户", ["gmv"], True),  # a measure's name that is a value: the GMV of new customers
    ("new customers only", ["gmv"], True),
    ("那新用户贡献了多少", ["gmv"], True),
    ("那新用户有多少", ["new_customers"], False),  # a number of them asked: the count
])  # fmt: skip
def test_a_follow_up_naming_new_users_filters_the_plan_unless_it_asks_how_many(question, measures, filtered):
    before = {"measures": ["gmv"], "dimensions": ["region"], "window": {"start": "2026-11-01", "end": "2026-12-01"}}
    plan = edited(before, question)
    assert plan.measures == measures and bool(plan.filters) is filtered
