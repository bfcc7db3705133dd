"""The recall benchmark's inputs: gold tables/columns from SQL, the merged catalog, a tiny scale run."""

from __future__ import annotations

import json

from bench import recall_data as rd
from bench.__main__ import main
from wenshu.catalog import Catalog, ColumnInfo, TableInfo
from wenshu.knowledge.structure import JoinGraph


def _cat(name="shop") -> Catalog:
    return Catalog(name, "sqlite", [
        TableInfo("singer", "", [ColumnInfo("singer_id", "INTEGER", primary_key=True), ColumnInfo("Name", "TEXT")]),
        TableInfo("concert", "", [ColumnInfo("concert_id", "INTEGER", primary_key=True),
                                  ColumnInfo("singer_id", "INTEGER", foreign_key="singer.singer_id")]),
    ])


def test_gold_resolves_aliases_and_unqualified_columns():
    tables, cols = rd.gold_of("SELECT T1.name, count(*) FROM singer AS T1 JOIN concert AS T2 "
                              "ON T1.singer_id = T2.singer_id WHERE concert_id > 2 GROUP BY T1.name", _cat())
    assert tables == {"singer", "concert"}
    assert cols == {("singer", "Name"), ("singer", "singer_id"), ("concert", "singer_id"), ("concert", "concert_id")}
    assert rd.gold_of("SELECT count(*) FROM singer", _cat()) == ({"singer"}, set())
    assert rd.gold_of("SELEC nonsense FROM (", _cat()) is None


def test_merged_catalog_prefixes_tables_and_keys():
    merged = rd.merged_catalog({"a": _cat("a"), "b": _cat("b")})
    assert merged.table_names() == ["a__singer", "a__concert", "b__singer", "b__concert"]
    assert merged.table("a__concert").column("singer_id").foreign_key == "a__singer.singer_id"
    assert JoinGraph(merged).path("a__concert", "a__singer") == ["a__concert", "a__singer"]
    assert JoinGraph(merged).path("a__concert", "b__singer") is None


def test_scale_part_runs_and_writes_results(tmp_path, capsys):
    out = tmp_path / "recall.json"
    assert main(["recall", "--parts", "scale", "--scale-tables", "30", "--scale-columns", "6", "--out", str(out)]) == 0
    data = json.loads(out.read_text())["scale"]
    assert data["tables"] == 30 and data["columns"] == 180
    assert data["index_stats_cold"]["embedded"] == 30 * 7 and data["index_stats_warm"]["embedded"] == 0
    assert data["latency_ms_p50"] > 0
    assert "index build" in capsys.readouterr().out
