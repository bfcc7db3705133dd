"""A member's rank among all members of its dimension ("上个月华南的销售额在七个大区里排第几", "what rank was the app by
orders last quarter"): the words are found and blanked, the plan becomes a split by the member's dimension with
`rank_of`, and the compiled SQL ranks every member and keeps the named one (also through the agent, on a scripted
model, with a chip to remove the rank); checked on the demo database against a
ranking computed here in Python. The questions are written here."""

from __future__ import annotations

import json
import sqlite3

import pytest

from demo_reading import MODEL, planned
from wenshu.contracts import AgentRequest
from wenshu.semantic import rank_of
from wenshu.semantic.compile import compile_plan
from wenshu.semantic.plan import QueryPlan


def _regions(db_file: str, window) -> list[tuple[str, float]]:
    sql = ("SELECT r.region_name, SUM(o.pay_amount) FROM orders o JOIN cities c ON c.city_id = o.city_id "
           "JOIN regions r ON r.region_id = c.region_id WHERE o.status = 1 AND o.order_date >= ? AND o.order_date < ? "
           "GROUP BY 1")
    with sqlite3.connect(db_file) as db:
        return sorted(db.execute(sql, (window.start.isoformat(), window.end.isoformat())).fetchall(), key=lambda r: -r[1])


@pytest.mark.parametrize("question", ["上个月华南的销售额在七个大区里排第几？", "上个月华南的GMV排名多少"])
def test_a_members_rank_is_its_place_among_all_members(question, demo_db_file):
    blanked = rank_of.said(question)
    assert blanked is not None and len(blanked) == len(question) and "华南" in blanked
    plan = rank_of.ranked(MODEL, planned(blanked))
    assert plan is not None and plan.rank_of and plan.dimensions == ["region"]
    compiled = compile_plan(MODEL, plan, "sqlite", "zh")
    with sqlite3.connect(demo_db_file) as db:
        rows = db.execute(compiled.sql).fetchall()
    everyone = _regions(demo_db_file, plan.window)
    place = 1 + sum(1 for _, v in everyone if v > dict(everyone)["华南"])
    assert compiled.columns == ["大区", "销售额", "排名"]
    assert rows == [("华南", round(dict(everyone)["华南"], 2), place)]


def test_english_asks_where_a_member_ranks_and_keeps_the_member_named():
    blanked = rank_of.said("Where did the app rank among all channels by paid orders last quarter?")
    assert blanked is not None and "app" in blanked and "rank" not in blanked.lower()
    plan = rank_of.ranked(MODEL, planned(blanked))
    assert plan is not None and plan.dimensions == ["channel"] and plan.measures == ["paid_orders"]


@pytest.mark.parametrize("question", ["上个月销售额排名前三的城市", "rank the regions by GMV last month", "各大区销售额排名"])
def test_a_ranking_of_all_members_is_no_rank_of_one(question):
    assert rank_of.said(question) is None


def test_nothing_to_rank_without_a_named_member_and_two_named_members_each_get_theirs(demo_db_file):
    assert rank_of.ranked(MODEL, planned("上个月的销售额")) is None
    plan = rank_of.ranked(MODEL, planned(rank_of.said("上个月华东和华南的销售额各排第几")))
    with sqlite3.connect(demo_db_file) as db:
        rows = db.execute(compile_plan(MODEL, plan, "sqlite", "zh").sql).fetchall()
    everyone = [name for name, _ in _regions(demo_db_file, plan.window)]
    assert [(r[0], r[2]) for r in rows] == sorted(((n, everyone.index(n) + 1) for n in ("华东", "华南")), key=lambda x: x[1])


def test_the_agent_answers_a_members_rank_on_the_plan_path_with_a_rank_chip(plan_agent, fake_model, demo_db_file):
    fake_model.queue(json.dumps({"measures": ["gmv"], "filters": [{"dimension": "region", "values": ["华南"]}]}))
    resp = plan_agent.ask(AgentRequest(message="上个月华南的销售额在七个大区里排第几？"))
    assert resp.error is None, resp.error
    plan = QueryPlan.model_validate(resp.plan["plan"])
    assert plan.rank_of and plan.dimensions == ["region"] and resp.columns[-1] == "排名"
    everyone = [name for name, _ in _regions(demo_db_file, plan.window)]
    assert [list(r)[::2] for r in resp.rows] == [["华南", everyone.index("华南") + 1]]
    chip = next(c for c in resp.plan["chips"] if c["kind"] == "rank")
    assert not chip["remove"].get("rank_of") and not chip["remove"].get("dimensions")  # the member's value alone


def test_a_rank_with_its_split_or_member_taken_away_compiles_as_the_plan_left():
    plan = rank_of.ranked(MODEL, planned(rank_of.said("上个月华南的GMV排名多少")))
    alone = compile_plan(MODEL, plan.model_copy(update={"dimensions": []}), "sqlite", "zh")  # a chip took the split
    assert "RANK()" not in alone.sql and alone.columns == ["销售额"]
    whole = compile_plan(MODEL, plan.model_copy(update={"filters": []}), "sqlite", "zh")  # or the member
    assert "RANK()" not in whole.sql and whole.columns == ["大区", "销售额"]


def test_a_rank_plan_whose_split_a_chip_took_away_gets_chips_without_a_rank_chip():
    from wenshu.agent.plan_answer import PlanView
    from wenshu.agent.plan_reply import chips

    plan = rank_of.ranked(MODEL, planned(rank_of.said("上个月华南的GMV排名多少")))
    kinds = [c["kind"] for c in chips(PlanView(MODEL, plan.model_copy(update={"dimensions": []}), "zh"))]
    assert "rank" not in kinds and "measure" in kinds
