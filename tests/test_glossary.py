"""The business glossary: matching in questions, the app-store repository, YAML and the CLI."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from wenshu.cli.app import app
from wenshu.errors import DuplicateEntry, InputError, NotFound
from wenshu.knowledge.glossary import Glossary, GlossaryLibrary, GlossaryTerm, dump_yaml, import_terms, parse_yaml
from wenshu.knowledge.seed import bundled_glossary_text
from wenshu.storage.db import open_store

runner = CliRunner()
TERMS = [
    GlossaryTerm("GMV", "paid pay_amount summed", "SUM(orders.pay_amount)", ["成交额", "gross merchandise value"],
                 ["orders"]),
    GlossaryTerm("华东", "a region", "regions.region_name = '华东'", ["华东区", "East China"], ["regions"]),
    GlossaryTerm("UV", "unique visitors", "SUM(daily_traffic.uv)", ["访客数"], ["daily_traffic"]),
    GlossaryTerm("高价值用户", "rich customers", None, ["high-value customers"], ["customers", "orders"], "topic"),
    GlossaryTerm("销售额", "same as GMV", "SUM(orders.pay_amount)", ["sales"], ["orders"]),
    GlossaryTerm("销售额占比", "share of sales", None, [], ["orders"]),
]


@pytest.fixture
def app_store(tmp_path):
    s = open_store(f"sqlite:///{tmp_path / 'app.db'}")
    yield s
    s.close()


def names(terms) -> list[str]:
    return [t.term for t in terms]


def test_match_terms_and_synonyms_in_order_of_appearance():
    g = Glossary(TERMS)
    assert names(g.match("上周华东区的成交额")) == ["华东", "GMV"]
    assert names(g.match("gmv of EAST CHINA last week")) == ["GMV", "华东"]
    assert names(g.match("UVs and gmv")) == ["UV", "GMV"]  # a plural still matches a word
    assert g.match("GMVX and UVW") == []  # ASCII names only match whole words
    assert names(g.match("What did high-value customers buy?")) == ["高价值用户"]
    assert g.match("天气怎么样") == []


def test_longest_match_wins_without_overlaps():
    g = Glossary(TERMS)
    assert names(g.match("各品类销售额占比")) == ["销售额占比"]  # not also 销售额 inside it
    assert names(g.match("销售额和销售额占比")) == ["销售额", "销售额占比"]
    assert g.get("成交额").term == "GMV" and g.get("nothing") is None
    assert g.for_datasource("anything") is g


def test_repository_add_put_remove(app_store):
    repo = app_store.glossary
    rec = repo.add("shop", "GMV", "paid sales", sql="SUM(x)", synonyms=["成交额", "成交额", " "], tables=["orders"])
    assert rec.synonyms == ["成交额"] and rec.kind == "term" and rec.tables == ["orders"]
    with pytest.raises(DuplicateEntry):
        repo.add("shop", "gmv", "again")
    with pytest.raises(InputError):
        repo.add("shop", "X", "")
    with pytest.raises(InputError):
        repo.add("shop", "X", "d", kind="concept")
    updated, created = repo.put("shop", "GMV", "new definition", synonyms=["gross merchandise value"])
    assert not created and updated.id == rec.id and updated.definition == "new definition" and updated.sql is None
    lib = GlossaryLibrary(repo)
    assert names(lib.match("shop", "gross merchandise value by month")) == ["GMV"]
    assert lib.match("other", "GMV") == []  # glossaries are per datasource
    repo.remove("shop", "gmv")
    assert repo.count("shop") == 0
    with pytest.raises(NotFound):
        repo.remove("shop", "GMV")


def test_yaml_round_trip_and_bad_files(app_store):
    text = dump_yaml(TERMS)
    assert parse_yaml(text) == TERMS
    assert import_terms(app_store.glossary, "shop", TERMS) == (len(TERMS), 0)
    assert import_terms(app_store.glossary, "shop", TERMS[:2]) == (0, 2)
    back = GlossaryLibrary(app_store.glossary).for_datasource("shop").terms
    assert back == TERMS
    for bad in ("glossary: {term: x}", "glossary:\n- term: x\n", "[unclosed"):
        with pytest.raises(InputError):
            parse_yaml(bad)


def test_demo_glossary_covers_terms_and_topics_in_both_languages():
    terms = parse_yaml(bundled_glossary_text("demo"))
    assert len(terms) >= 10
    assert {"term", "topic"} == {t.kind for t in terms}
    g = Glossary(terms)
    assert {"华东", "GMV"} <= set(names(g.match("上周华东区的GMV环比")))
    assert {"客单价", "一线城市"} <= set(names(g.match("average order value in tier-1 cities")))
    topic = g.get("high-value customers")
    assert topic.kind == "topic" and {"customers", "orders"} <= set(topic.tables)


def test_cli_round_trip(home, tmp_path):
    def run(*args):
        return runner.invoke(app, ["glossary", *args])

    listed = json.loads(run("list", "--json").stdout)
    assert len(listed) >= 10
    out = run("add", "大促", "--definition", "双十一当天", "--sql", "order_date LIKE '%-11-11'", "-s", "Singles Day",
              "-s", "双十一")
    assert out.exit_code == 0, out.output
    shown = json.loads(run("show", "singles day", "--json").stdout)
    assert shown["term"] == "大促" and shown["synonyms"] == ["Singles Day", "双十一"]
    assert "duplicate" in run("add", "大促", "--definition", "x").output
    topic = run("add", "渠道分析", "--definition", "channels", "--topic", "-t", "orders", "-t", "daily_traffic")
    assert topic.exit_code == 0
    path = tmp_path / "g.yaml"
    assert run("export", str(path)).exit_code == 0
    assert run("remove", "大促").exit_code == 0
    assert run("show", "大促").exit_code == 1
    assert run("remove", "渠道分析").exit_code == 0
    imported = run("import", str(path))
    assert imported.exit_code == 0 and "2 added" in imported.output
    assert json.loads(run("show", "渠道分析", "--json").stdout)["tables"] == ["orders", "daily_traffic"]
    assert "unknown_datasource" in run("list", "--db", "nope").output
