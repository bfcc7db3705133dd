import csv

from report import write_report


def test_header(tmp_path):
    path = tmp_path / "r.csv"
    write_report([("East", 1.5)], path)
    with open(path, newline="") as f:
        assert list(csv.reader(f)) == [["region", "gmv"], ["East", "1.5"]]
