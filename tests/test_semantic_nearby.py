"""Words the semantic model does not list, matched by meaning with the real embedder (`semantic.nearby`), and
what grounding and the plan path do with them. The questions are written here, in words the demo model lists
nowhere ("purchasers", "merchandise type")."""

from __future__ import annotations

import json

import pytest

from wenshu.contracts import AgentRequest
from wenshu.semantic.grounding import ground
from wenshu.semantic.library import bundled_text
from wenshu.semantic.mentions import read
from wenshu.semantic.model import parse_model
from wenshu.semantic.nearby import Nearby, phrases
from wenshu.semantic.plan import QueryPlan

PURCHASERS = "How many distinct purchasers did we have last month?"


@pytest.fixture(scope="module")
def demo():
    return parse_model(bundled_text("demo"))


@pytest.fixture(scope="module")
def nearby():
    from wenshu.providers.embeddings import USEEmbedder

    return Nearby(USEEmbedder())


def test_phrases_leave_out_words_already_read_and_function_words():
    found = phrases("What were our takings last month by area?", ["takings", "area"])
    assert found == []
    found = phrases("How many distinct purchasers did we have last month?")
    assert "purchasers" in found and "distinct purchasers" in found
    assert not {"we", "last month", "month", "how many"} & set(found)
    assert "回头客" in phrases("上个月回头客有多少")


def test_a_word_no_entry_lists_is_near_the_entry_it_means(demo, nearby):
    m = nearby.near(demo, PURCHASERS, read(demo, PURCHASERS))
    assert read(demo, PURCHASERS).measures == []  # the text reading finds nothing
    assert list(m.near_measures)[0] == "buyers" and m.near_measures["buyers"] == "purchasers"
    q = "Net sales per merchandise type this month"
    assert "category" in nearby.near(demo, q, read(demo, q)).near_dimensions


def test_a_request_for_rows_is_not_turned_into_totals_by_a_near_measure(demo, nearby):
    counted = "How many people enrolled last week?"
    assert nearby.near(demo, counted, read(demo, counted)).near_measures == {"new_customers": "enrolled"}
    q = "List everybody who enrolled last week, with their name and city"
    assert read(demo, q).listing and nearby.near(demo, q, read(demo, q)).near_measures == {}


def test_grounding_keeps_the_model_s_choice_only_when_a_phrase_is_near_it(demo, nearby):
    m = nearby.near(demo, PURCHASERS, read(demo, PURCHASERS))
    kept = ground(QueryPlan(measures=["buyers"]), demo, PURCHASERS, mentions=m)
    assert kept.plan is not None and kept.plan.measures == ["buyers"]
    other = ground(QueryPlan(measures=["uv"]), demo, PURCHASERS, mentions=m)  # the model and the embedder disagree
    assert other.plan is None and "names none of the semantic model's measures" in other.reason
    bare = ground(QueryPlan(measures=["buyers"]), demo, PURCHASERS, mentions=read(demo, PURCHASERS))
    assert bare.plan is None  # without the embedder the choice is dropped as not said


def test_a_split_near_in_meaning_stays_and_an_unrelated_one_goes(demo, nearby):
    q = "Net sales per merchandise type this month"
    m = nearby.near(demo, q, read(demo, q))
    plan = ground(QueryPlan(measures=["gmv"], dimensions=["category"]), demo, q, mentions=m).plan
    assert plan is not None and plan.dimensions == ["category"]
    plan = ground(QueryPlan(measures=["gmv"], dimensions=["gender"]), demo, q, mentions=m).plan
    assert plan is not None and plan.dimensions == []


@pytest.fixture
def agent_with(store, fake_model, home):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient
    from wenshu.settings import Settings

    def make(**settings):
        return Agent(Settings(semantic_path=True, **settings), store,
                     models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))
    return make


def test_the_plan_path_answers_a_word_read_by_meaning_and_says_how_it_read_it(agent_with, fake_model):
    fake_model.queue(json.dumps({"measures": ["buyers"]}))
    resp = agent_with(disabled_checks=[]).ask(AgentRequest(message=PURCHASERS))  # off by default: switched on
    plan = next(t for t in resp.trace if t.node == "plan")
    assert plan.status == "ok" and "read by meaning: purchasers -> buyers" in plan.detail
    assert plan.checks == ["near_words"] and "COUNT(DISTINCT" in resp.sql
    assert "“purchasers” is read as" in resp.answer


def test_with_the_check_off_the_word_is_not_read_and_free_sql_answers(agent_with, fake_model):
    fake_model.default = "SELECT COUNT(DISTINCT customer_id) AS n FROM orders"
    resp = agent_with().ask(AgentRequest(message=PURCHASERS))  # the default: off
    plan = next(t for t in resp.trace if t.node == "plan")
    assert plan.status == "skipped" and "names none of the semantic model's measures" in plan.detail
    assert not any("query plan" in call[0].content for call in fake_model.calls)  # no plan was asked for
