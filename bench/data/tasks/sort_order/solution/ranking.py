def top_cities(orders_by_city, n):
    """The n cities with the most orders, most first."""
    ranked = sorted(orders_by_city.items(), key=lambda item: item[1], reverse=True)
    return [city for city, _ in ranked[:n]]
