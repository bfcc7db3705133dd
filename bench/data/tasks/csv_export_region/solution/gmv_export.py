import csv


def export_gmv_by_region(orders, path):
    totals = {}
    for order in orders:
        totals[order["region"]] = totals.get(order["region"], 0.0) + order["amount"]
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["region", "gmv"])
        for region in sorted(totals):
            writer.writerow([region, totals[region]])
