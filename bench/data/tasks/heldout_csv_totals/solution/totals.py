import csv


def export_totals(sales, path):
    totals = {}
    for category, amount in sales:
        totals[category] = totals.get(category, 0.0) + amount
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["category", "total"])
        for category in sorted(totals):
            writer.writerow([category, totals[category]])
