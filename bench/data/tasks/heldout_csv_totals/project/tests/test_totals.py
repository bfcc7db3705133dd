import csv

from totals import export_totals

SALES = [("toys", 5.0), ("books", 12.5), ("toys", 2.5), ("books", 0.5)]


def test_export_totals(tmp_path):
    path = tmp_path / "totals.csv"
    export_totals(SALES, path)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows == [["category", "total"], ["books", "13.0"], ["toys", "7.5"]]
