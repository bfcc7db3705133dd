import csv
from datetime import date

from export import export_last_month

ORDERS = [
    {"date": "2024-04-30", "region": "East", "amount": 10.0},
    {"date": "2024-05-01", "region": "East", "amount": 100.0},
    {"date": "2024-05-20", "region": "West", "amount": 50.0},
    {"date": "2024-05-31", "region": "East", "amount": 25.0},
    {"date": "2024-06-01", "region": "West", "amount": 7.0},
]


def test_last_month(tmp_path):
    path = tmp_path / "last_month.csv"
    export_last_month(ORDERS, date(2024, 6, 15), path)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows == [["region", "gmv"], ["East", "125.0"], ["West", "50.0"]]
