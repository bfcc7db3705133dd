import csv


def write_report(rows, path):
    """rows: (region, gmv) pairs, written as CSV with a region,gmv header."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["region", "gmv"])
        for region, gmv in rows:
            writer.writerow([region, gmv])
