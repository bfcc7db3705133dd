import csv
from datetime import date, timedelta


def export_last_month(orders, today, path):
    first_this = today.replace(day=1)
    first_last = (first_this - timedelta(days=1)).replace(day=1)
    totals = {}
    for order in orders:
        day = date.fromisoformat(order["date"])
        if first_last <= day < first_this:
            totals[order["region"]] = totals.get(order["region"], 0.0) + order["amount"]
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["region", "gmv"])
        for region in sorted(totals):
            writer.writerow([region, totals[region]])
