"""The generate prompt with recalled values, matched glossary terms and examples (pure build_messages)."""

from __future__ import annotations

from wenshu.agent.generate import MAX_VALUES, GenerateInput, build_messages
from wenshu.knowledge.glossary import Glossary, parse_yaml
from wenshu.knowledge.seed import bundled_glossary_text

SCHEMA = "CREATE TABLE regions (region_id INTEGER PRIMARY KEY, region_name TEXT);"


def make(question="上周华东区的GMV", **kw) -> GenerateInput:
    base = dict(question=question, dialect="sqlite", schema_block=SCHEMA, today="2026-11-30", row_limit=100,
                examples=[], history=[])
    return GenerateInput(**{**base, **kw})


def test_values_glossary_and_examples_reach_the_user_message_in_order():
    glossary = Glossary(parse_yaml(bundled_glossary_text("demo")))
    terms = [t.to_dict() for t in glossary.match("上周华东区的GMV，看看高价值用户")]
    values = [{"table": "regions", "column": "region_name", "value": "华东"},
              {"table": "orders", "column": "status", "value": 1, "label": "已支付"},
              {"table": "customers", "column": "customer_name", "value": "O'Brien"}]
    examples = [{"question": "上个月各大区的销售额", "sql": "SELECT region_name FROM regions"}]
    system, user = build_messages(make(values=values, glossary=terms, examples=examples))
    text = user.content
    assert "regions.region_name = '华东'" in text
    assert "orders.status = 1  -- 已支付" in text
    assert "customers.customer_name = 'O''Brien'" in text  # quoted as a SQL literal
    assert "- GMV (成交额, 成交总额, gross merchandise value): 成交总额" in text
    assert "SQL: SUM(orders.pay_amount) with orders.status = 1" in text
    assert "SQL: regions.region_name = '华东'" in text
    assert "Tables: customers, orders" in text  # a topic lists its tables
    assert "Question: 上个月各大区的销售额\nSQL: SELECT region_name FROM regions" in text
    order = [text.index(s) for s in ("Business terms", "Values from the question", "Examples (", "Question: 上周")]
    assert order == sorted(order)
    assert text.rstrip().endswith("SQL:")
    assert "华东" not in system.content and "GMV" not in system.content


def test_the_system_prefix_does_not_depend_on_the_question():
    a = build_messages(make())[0].content
    b = build_messages(make("top cities", values=[{"table": "t", "column": "c", "value": "x"}],
                            glossary=[{"term": "T", "definition": "d", "sql": "s", "synonyms": [], "tables": []}],
                            examples=[{"question": "q", "sql": "SELECT 1"}]))[0].content
    assert a == b and SCHEMA in a


def test_empty_parts_leave_no_headings_and_long_lists_are_capped():
    user = build_messages(make())[1].content
    assert "Business terms" not in user and "Values from" not in user and "Examples:" not in user
    many = [{"table": "cities", "column": "city_name", "value": f"city{i}"} for i in range(20)]
    dup = [{"table": "cities", "column": "city_name", "value": "city0"}]
    user = build_messages(make(values=dup + many))[1].content
    assert user.count("cities.city_name = ") == MAX_VALUES
