def countdown(n):
    """n, n-1, ..., down to and including 0."""
    return list(range(n, 0, -1))
