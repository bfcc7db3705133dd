import csv

from gmv_export import export_gmv_by_region
from orders import ORDERS


def test_export_gmv_by_region(tmp_path):
    path = tmp_path / "gmv.csv"
    export_gmv_by_region(ORDERS, path)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows == [["region", "gmv"], ["East", "150.0"], ["North", "80.0"]]
