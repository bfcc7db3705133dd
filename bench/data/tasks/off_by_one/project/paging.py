def page(items, number, size=10):
    """The items on page `number` (pages start at 1), `size` per page."""
    start = number * size
    return items[start:start + size]
