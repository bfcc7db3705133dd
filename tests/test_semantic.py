"""Semantic models: the demo's reviewed model, checks that name the bad entry, versions, draft, CLI."""

from __future__ import annotations

import sqlite3

import pytest
import yaml
from typer.testing import CliRunner

from wenshu.cli.app import app
from wenshu.knowledge.introspect import load_catalog
from wenshu.semantic.draft import draft_model
from wenshu.semantic.library import bundled_text, export_text, import_model, load
from wenshu.semantic.model import InvalidSemanticModel, parse_model
from wenshu.semantic.validate import check


@pytest.fixture
def demo_catalog(store):
    from wenshu.knowledge.sync import current_catalog

    return current_catalog(store, "demo", store.datasources.get("demo").url)


def edited(change) -> str:
    data = yaml.safe_load(bundled_text("demo"))
    change(data)
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


def measure(data: dict, mid: str) -> dict:
    return next(m for m in data["measures"] if m["id"] == mid)


def test_the_demo_ships_a_reviewed_model_stored_on_first_use(store, demo_catalog):
    model = load(store, "demo")
    assert model is not None and store.semantic.get("demo").source == "bundled"
    assert check(model, demo_catalog) == []
    ids = {m.id for m in model.measures}
    assert {"gmv", "paid_orders", "units_sold", "gross_profit", "uv"} <= ids
    assert all(r.numerator in ids and r.denominator in ids for r in model.ratios)
    gmv = next(m for m in model.measures if m.id == "gmv")
    assert (gmv.agg, gmv.expr, gmv.filter, gmv.table) == ("sum", "pay_amount", "status = 1", "orders")
    status = next(d for d in model.dimensions if d.id == "order_status")
    assert status.labels["1"] == "已支付"


@pytest.mark.parametrize("change, entry, words", [
    (lambda d: measure(d, "gmv").update(expr="pay_amt"), "measure gmv", "column 'orders.pay_amt' does not exist"),
    (lambda d: measure(d, "gmv").update(expr="SUM(pay_amount)"), "measure gmv", "aggregates"),
    (lambda d: measure(d, "gmv").update(expr="order_items.quantity"), "measure gmv", "does not reach by many-to-one"),
    (lambda d: measure(d, "units_sold").update(time="orders.paid_date"), "measure units_sold", "orders.paid_date"),
    (lambda d: d["relationships"].append({"from": "customers.town_id", "to": "cities.city_id"}),
     "relationship customers.town_id -> cities.city_id", "'customers.town_id' does not exist"),
    (lambda d: d["ratios"][0].update(denominator="orders_count"), "ratio aov", "'orders_count' is not a measure"),
    (lambda d: d["dimensions"].append({"id": "city", "zh": "城市2", "en": "city 2", "table": "cities",
                                       "column": "city_name"}), "dimension city", "also used"),
    (lambda d: d["dimensions"][0].update(column="region"), "dimension region", "'regions.region' does not exist"),
    (lambda d: d["records"][0]["columns"].append("order_no"), "record order", "'orders.order_no' does not exist"),
    (lambda d: d["records"][1]["columns"].append("product"), "record refund", "does not reach by many-to-one"),
    (lambda d: d["records"][1].update(rank_by="gmv"), "record refund", "rank_by 'gmv' is not a measure of refunds"),
    (lambda d: d["dimensions"][2].update(aliases={"9": ["tier nine"]}), "dimension city_tier", "aliases has code '9'"),
    (lambda d: measure(d, "gmv").update(at_least=2), "measure gmv", "needs agg count_distinct"),
    (lambda d: next(x for x in d["dimensions"] if x["id"] == "day_type").update(labels={"2": "周二"}),
     "dimension day_type", "a day_type part is a category whose codes are 1, 0"),
    (lambda d: next(x for x in d["dimensions"] if x["id"] == "weekday").update(kind="time", grains=["day"]),
     "dimension weekday", "a day_of_week part is a category"),
    (lambda d: d.update(headline="sales"), "headline", "'sales' is not a measure or ratio"),
])
def test_a_bad_entry_is_named_with_the_reason(demo_catalog, change, entry, words):
    problems = check(parse_model(edited(change)), demo_catalog)
    assert any(p.entry == entry and words in p.en for p in problems), [str(p) for p in problems]


def test_a_measure_without_aggregation_does_not_parse_and_says_where(demo_catalog):
    with pytest.raises(InvalidSemanticModel) as err:
        parse_model(edited(lambda d: measure(d, "gmv").pop("agg")))
    assert err.value.code == "semantic_model_invalid"
    assert any(p.startswith("measures[0] (gmv).agg") for p in err.value.problems)
    with pytest.raises(InvalidSemanticModel):
        parse_model("measures: [unclosed")


def test_import_stores_only_valid_models_as_new_versions(store, demo_catalog):
    before = store.semantic.count("demo")
    with pytest.raises(InvalidSemanticModel) as err:
        import_model(store, demo_catalog, edited(lambda d: measure(d, "gmv").update(expr="pay_amt")))
    assert "measure gmv" in err.value.en and "语义模型无效" in err.value.zh
    assert store.semantic.count("demo") == before  # nothing half-built is stored
    text = edited(lambda d: measure(d, "gmv").update(zh="成交总额"))
    version, model = import_model(store, demo_catalog, text)
    assert version == before + 1 and load(store, "demo").measures[0].zh == "成交总额"
    assert export_text(store, "demo") == text and export_text(store, "demo", 1) == bundled_text("demo")
    with pytest.raises(InvalidSemanticModel):
        import_model(store, demo_catalog, text.replace("datasource: demo", "datasource: sales"))


def test_two_join_paths_of_the_same_length_are_refused_and_a_longer_second_one_is_not(tmp_path):
    """Orders reach cities directly and through their customer: joins take the shortest (the delivery city),
    so that model is valid; with no direct route, the customer's and the store's city tie and are refused."""
    db = tmp_path / "shops.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            CREATE TABLE cities (id INTEGER PRIMARY KEY, city_name TEXT);
            CREATE TABLE customers (id INTEGER PRIMARY KEY, city_id INTEGER);
            CREATE TABLE stores (id INTEGER PRIMARY KEY, city_id INTEGER);
            CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, store_id INTEGER, city_id INTEGER,
                                 amount REAL);
        """)
    catalog = load_catalog("shops", f"sqlite:///{db}")
    base = {"datasource": "shops", "measures": [{"id": "sales", "zh": "销售额", "en": "sales", "table": "orders",
                                                  "agg": "sum", "expr": "amount"}],
            "dimensions": [{"id": "city", "zh": "城市", "en": "city", "table": "cities", "column": "city_name"}]}
    rel = {"customer": {"from": "orders.customer_id", "to": "customers.id"}, "store": {"from": "orders.store_id",
           "to": "stores.id"}, "direct": {"from": "orders.city_id", "to": "cities.id"},
           "customer_city": {"from": "customers.city_id", "to": "cities.id"},
           "store_city": {"from": "stores.city_id", "to": "cities.id"}}
    shorter = parse_model(yaml.safe_dump({**base, "relationships": [rel[k] for k in ("customer", "direct", "customer_city")]}))
    assert check(shorter, catalog) == []
    tied = parse_model(yaml.safe_dump({**base, "relationships": [rel[k] for k in ("customer", "store", "customer_city",
                                                                                   "store_city")]}))
    problems = check(tied, catalog)
    assert [p.entry for p in problems] == ["relationship stores.city_id -> cities.id"]
    assert "orders -> customers -> cities; orders -> stores -> cities" in problems[0].en


def test_a_draft_from_the_catalog_validates_and_proposes_keys_measures_and_time(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city_id INTEGER REFERENCES cities(id),
                                    member_level INTEGER, city_tier INTEGER);
            CREATE TABLE cities (id INTEGER PRIMARY KEY, city_name TEXT);
            CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id),
                                 city_id INTEGER REFERENCES cities(id), amount REAL, created_date TEXT);
            INSERT INTO cities VALUES (1, 'Paris');
            INSERT INTO customers VALUES (1, 'Ann', 1, 2, 1);
            INSERT INTO orders VALUES (1, 1, 1, 9.5, '2026-11-02');
        """)
    catalog = load_catalog("shop", f"sqlite:///{db}")
    for col in catalog.table("customers").columns:  # codes labelled, as a glossary or the column comments give them
        col.enum = {"member_level": {"1": "silver", "2": "gold"}, "city_tier": {"1": "tier 1", "2": "tier 2"}}.get(col.name, {})
    model = draft_model(catalog)
    assert check(model, catalog) == []
    assert parse_model(model.to_yaml()) == model  # the YAML round-trips
    pairs = {(r.from_, r.to) for r in model.relationships}
    assert ("orders.customer_id", "customers.id") in pairs and len(pairs) == 2  # the third closes a cycle
    assert "Left out" in model.description
    amount = next(m for m in model.measures if m.id == "orders_amount_sum")
    assert (amount.agg, amount.expr, amount.time) == ("sum", "amount", "created_date")
    assert any(d.kind == "time" and d.column == "created_date" for d in model.dimensions)
    assert any(d.column == "city_name" for d in model.dimensions)
    assert model.headline == "orders_amount_sum"  # the fact table (timed, looking up the most others): its sum
    assert [d.column for d in model.dimensions if d.ordered] == ["member_level"]  # a tier's code falls as it rises


def test_the_cli_validates_imports_exports_and_lists_versions(home, tmp_path):
    run = CliRunner().invoke
    bad = tmp_path / "bad.yaml"
    bad.write_text(edited(lambda d: d["relationships"].append({"from": "customers.town_id", "to": "cities.city_id"})),
                   encoding="utf-8")
    out = run(app, ["semantic", "validate", "demo", str(bad)])
    assert out.exit_code == 1 and "customers.town_id" in out.output
    assert run(app, ["semantic", "import", "demo", str(bad)]).exit_code == 1
    good = tmp_path / "good.yaml"
    good.write_text(edited(lambda d: measure(d, "gmv").update(unit="CNY")), encoding="utf-8")
    assert run(app, ["semantic", "validate", "demo", str(good)]).exit_code == 0
    out = run(app, ["semantic", "import", "demo", str(good)])
    assert out.exit_code == 0 and "version 2" in out.output
    assert run(app, ["semantic", "export", "demo"]).output == good.read_text(encoding="utf-8")
    versions = run(app, ["semantic", "show", "demo", "--versions", "--json"])
    assert [(v["version"], v["source"]) for v in __import__("json").loads(versions.output)] == [(1, "bundled"), (2, "user")]
    shown = run(app, ["semantic", "show", "demo"])
    assert shown.exit_code == 0 and "gmv" in shown.output and "many_to_one" in shown.output
    missing = run(app, ["semantic", "show", "nosuch"])
    assert missing.exit_code == 1 and "nosuch" in missing.output


def test_the_plan_schema_offers_only_this_datasource_ids(store):
    from wenshu.semantic.plan import QueryPlan
    from wenshu.semantic.schema import plan_schema

    model = load(store, "demo")
    schema = plan_schema(model)
    metrics = schema["properties"]["measures"]["items"]["enum"]
    assert "gmv" in metrics and "aov" in metrics and "region" not in metrics
    assert "region" in schema["properties"]["dimensions"]["items"]["enum"]
    assert schema["$defs"]["Filter"]["properties"]["dimension"]["enum"] == [d.id for d in model.dimensions]
    QueryPlan.model_validate({"measures": ["gmv"], "dimensions": ["region"]})  # the schema's own shape
    from wenshu.agent.plan import fill_schema  # the model is asked only what the question's words cannot say

    assert not {"window", "compare", "share", "order", "records"} & set(fill_schema(model)["properties"])
    # a limit of 0 (the grammar cannot hold the model to the schema's minimum) reads as no limit
    assert QueryPlan.model_validate({"measures": ["uv"], "limit": 0}).limit is None


def test_the_cli_compiles_a_plan_and_runs_it_through_the_guard(home):
    run = CliRunner().invoke
    plan = '{"measures": ["paid_orders"], "dimensions": ["member_level"], "order": "desc"}'
    out = run(app, ["semantic", "compile", "demo", plan, "--run", "--lang", "en"])
    assert out.exit_code == 0, out.output
    assert "COUNT(*)" in out.output and "member level" in out.output and "diamond" in out.output  # English labels
    refused = run(app, ["semantic", "compile", "demo", '{"measures": ["gmv"], "dimensions": ["product"]}'])
    assert refused.exit_code == 1 and "plan_not_compilable" in refused.output
    bad = run(app, ["semantic", "compile", "demo", '{"measures": []}'])
    assert bad.exit_code == 1 and "plan_invalid" in bad.output


@pytest.mark.parametrize("question, filled, kept", [
    # the model confuses neighbouring measures: the one the question names answers
    ("本月每个渠道的销售额是多少", {"measures": ["item_sales"], "dimensions": ["channel"]},
     {"measures": ["gmv"], "dimensions": ["channel"]}),
    ("各品类的商品销售额", {"measures": ["gmv"], "dimensions": ["category"]},
     {"measures": ["item_sales"], "dimensions": ["category"]}),
    ("上个月各大区的客单价和订单量", {"measures": ["aov", "all_orders"], "dimensions": ["region"]},
     {"measures": ["aov", "paid_orders"], "dimensions": ["region"]}),
    # operators the question does not ask for are dropped ...
    ("上个月各会员等级的下单客户数", {"measures": ["buyers"], "dimensions": ["member_level"], "grain": "month",
                               "compare": "previous", "share": True, "order": "desc", "limit": 5},
     {"measures": ["buyers"], "dimensions": ["member_level"]}),
    # ... and kept when it does, in either language
    ("各大区销售额的占比，以及环比", {"measures": ["gmv"], "dimensions": ["region"], "share": True, "compare": "previous"},
     {"measures": ["gmv"], "dimensions": ["region"], "share": True, "compare": "previous"}),
    ("monthly GMV trend, top 3 months", {"measures": ["gmv"], "grain": "month", "order": "desc", "limit": 3},
     {"measures": ["gmv"], "grain": "month", "order": "desc", "limit": 3}),
    ("只看华东的销售额", {"measures": ["gmv"], "filters": [{"dimension": "region", "values": ["华东", "华南"]}]},
     {"measures": ["gmv"], "filters": [{"dimension": "region", "values": ["华东"]}]}),
])
def test_a_filled_plan_keeps_only_what_the_question_says(store, question, filled, kept):
    from wenshu.semantic.grounding import ground
    from wenshu.semantic.plan import QueryPlan

    grounded = ground(QueryPlan.model_validate(filled), load(store, "demo"), question)
    assert grounded.plan.model_dump(exclude_defaults=True) == QueryPlan.model_validate(kept).model_dump(
        exclude_defaults=True)
