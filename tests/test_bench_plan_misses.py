"""`python -m bench plan_misses` finds the part of a wrong plan that, changed alone, makes it right: on the
demo database with the bundled semantic model, gold is a right plan's SQL written by hand and the wrong plans
differ from it in one part each (the measure, the window, a filter) or in two (none alone fixes it)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from bench.datasets import Item
from bench.plan_misses import _windows, fixes, members
from bench.scoring import run_sql
from wenshu.semantic.library import bundled_text
from wenshu.semantic.model import parse_model

GOLD = ("SELECT r.region_name, ROUND(SUM(o.pay_amount), 2) FROM orders o JOIN cities c ON c.city_id = o.city_id "
        "JOIN regions r ON r.region_id = c.region_id WHERE o.status = 1 AND o.order_date >= '{start}' "
        "AND o.order_date < '{end}' GROUP BY r.region_name")


@pytest.fixture(scope="module")
def case(demo_db_file):
    model = parse_model(bundled_text("demo"))
    windows = _windows()
    last30 = next(w for w in windows if w is not None and w.end - w.start == timedelta(days=30))
    gold_sql = GOLD.format(start=last30.start, end=last30.end)
    item = Item("t-1", "GMV by region over the last 30 days", gold_sql, "demo", demo_db_file, "medium")
    return model, windows, members(model, demo_db_file), item, run_sql(demo_db_file, gold_sql), last30


def plan(last30, **kw) -> dict:
    base = {"measures": ["gmv"], "dimensions": ["region"],
            "window": {"start": str(last30.start), "end": str(last30.end)}}
    return base | kw


@pytest.mark.parametrize("change, part", [
    ({"measures": ["item_sales"]}, "measure"),
    ({"window": {"start": str(date.today().replace(day=1)), "end": str(date.today() + timedelta(days=1))}}, "window"),
    ({"filters": [{"dimension": "channel", "values": ["app"]}]}, "filter"),
])
def test_one_wrong_part_is_found(case, change, part):
    model, windows, filters, item, gold, last30 = case
    found = fixes({"plan": plan(last30, **change), "lang": "en"}, item, gold, model, windows, filters)
    assert part in found
    assert "grain" not in found and "compare" not in found  # a change that does not make it right is not counted


def test_two_wrong_parts_are_none(case):
    model, windows, filters, item, gold, last30 = case
    wrong = plan(last30, measures=["item_sales"], filters=[{"dimension": "channel", "values": ["app"]}])
    assert fixes({"plan": wrong, "lang": "en"}, item, gold, model, windows, filters) == set()


def test_a_definition_apart_is_the_default_filter(case, demo_db_file):
    model, windows, filters, item, gold, last30 = case
    every_order = item.gold_sql.replace("o.status = 1 AND ", "")  # gold counts unpaid orders' amounts too
    other = Item("t-2", item.question, every_order, "demo", demo_db_file, "medium")
    found = fixes({"plan": plan(last30), "lang": "en"}, other, run_sql(demo_db_file, every_order), model, windows, filters)
    assert found == {"default filter"}
