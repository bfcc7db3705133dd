"""The text side of recall: identifier splitting, stemming, Chinese words, n-grams, BM25, the values index."""

from __future__ import annotations

from wenshu.catalog import Catalog, ColumnInfo, TableInfo
from wenshu.knowledge.bm25 import BM25
from wenshu.knowledge.documents import build_documents, clean_value, schema_hash
from wenshu.knowledge.tokenize import ngrams, split_identifier, stem, tokens
from wenshu.knowledge.value_index import ValueEntry, ValueIndex, romanized


def test_identifiers_split_into_words():
    assert split_identifier("order_items") == ["order", "items"]
    assert split_identifier("customerID2") == ["customer", "id", "2"]
    assert split_identifier("HTTPRequestLog") == ["http", "request", "log"]


def test_light_stemmer_drops_plurals_only():
    assert [stem(w) for w in ("cities", "orders", "boxes", "status", "class", "analysis", "id")] == [
        "city", "order", "box", "status", "class", "analysis", "id"]


def test_tokens_mix_english_and_chinese():
    toks = tokens("Singers of 华东区 orders")
    assert {"singer", "order", "华东", "华东区"} <= set(toks)
    assert "of" not in toks


def test_ngrams_cover_chinese_runs_english_phrases_and_quotes():
    grams = ngrams('华东区 sales in "New York" last year')
    assert {"华东", "华东区", "new york", "last year", "new york"} <= grams
    assert "in" not in grams


def test_bm25_prefers_rarer_matching_terms():
    bm = BM25([("order", "id"), ("order", "amount", "amount"), ("city", "name"), ("id",)])
    ranked = [i for i, _ in bm.search(["amount", "order"], 3)]
    assert ranked[0] == 1 and 2 not in ranked
    assert bm.search(["missing"], 3) == []
    assert BM25([]).search(["x"], 3) == []


def _catalog() -> Catalog:
    return Catalog("t", "sqlite", [
        TableInfo("regions", "", [ColumnInfo("region_name", "TEXT", samples=["华东", "华北", "东北"])]),
        TableInfo("orders", "", [ColumnInfo("status", "INTEGER", enum={"0": "待支付", "1": "已支付"}),
                                 ColumnInfo("city", "TEXT", samples=["San Francisco", "1", "x"]),
                                 ColumnInfo("blob", "BLOB", samples=[b"\x00\x01", "bad\x00text"])]),
    ])


def test_values_exact_enum_and_fuzzy():
    idx = ValueIndex.from_catalog(_catalog())
    hits = {(h.table, h.column, h.value) for h in idx.match("华东区已支付订单")}
    assert ("regions", "region_name", "华东") in hits and ("orders", "status", "1") in hits
    assert ("regions", "region_name", "东北") not in hits
    fuzzy = idx.match("orders shipped to San Fransisco")
    assert fuzzy and fuzzy[0].value == "San Francisco" and fuzzy[0].score < 1.0
    assert idx.match("order 1 of x") == []  # numbers and one-letter values never match


def test_short_chinese_names_match_their_pinyin_exactly_and_never_fuzzily():
    idx = ValueIndex(sum(([ValueEntry("cities", "city_name", v, v)] + [ValueEntry("cities", "city_name", v, r, exact_only=True)
                                                                       for r in romanized(v)] for v in ("上海", "重庆", "李宁")), []))
    hits = {(h.value, h.matched) for h in idx.match("GMV in Shanghai, Chongqing and for Li Ning")}
    assert hits == {("上海", "shanghai"), ("重庆", "chongqing"), ("李宁", "li ning")}
    assert idx.match("shanghal orders") == []  # a misspelling never reaches a romanized name
    assert romanized("波司登长款羽绒服") == [] and romanized("App") == []  # long names and words stay as they are


def test_a_value_several_tables_hold_keeps_the_tables_the_question_names():
    idx = ValueIndex([ValueEntry("Owners", "state", "Wisconsin", "Wisconsin"),
                      ValueEntry("Professionals", "state", "Wisconsin", "Wisconsin"),
                      ValueEntry("Professionals", "state", "Hawaii", "Hawaii")])
    said = {(h.table, h.value) for h in idx.match("emails of professionals living in Hawaii or Wisconsin")}
    assert said == {("Professionals", "Wisconsin"), ("Professionals", "Hawaii")}
    both = {h.table for h in idx.match("people living in Wisconsin")}  # no table named: every holder stays
    assert both == {"Owners", "Professionals"}


def test_binary_and_control_values_are_dropped():
    assert clean_value(b"\x00") is None and clean_value("a\x00b") is None
    assert clean_value("x" * 500) == "x" * 40
    docs = {d.id: d for d in build_documents(_catalog())}
    assert "\x00" not in docs["c:orders.blob"].text


def test_schema_hash_follows_content():
    a, b = _catalog(), _catalog()
    assert schema_hash(a) == schema_hash(b)
    b.tables[0].columns[0].comment = "大区"
    assert schema_hash(a) != schema_hash(b)


def test_words_of_the_schema_are_never_read_fuzzily_as_a_value():
    airports = Catalog(datasource="flights", dialect="sqlite", tables=[TableInfo("airports", columns=[
        ColumnInfo("AirportName", "TEXT", samples=["Ames", "Albuquerque"], low_cardinality=True)])])
    idx = ValueIndex.from_catalog(airports)
    assert idx.match("What are the airport names?") == []  # "names" is a column's word, near "Ames" by spelling only
    assert [h.value for h in idx.match("flights from Ames")] == ["Ames"]
    assert [h.value for h in idx.match("flights from Albuquerqe")] == ["Albuquerque"]  # a misspelt value still found
    unguarded = ValueIndex(idx.exact["ames"])
    assert [h.value for h in unguarded.match("What are the airport names?")] == ["Ames"]
