def discounted(price, rate=0.1):
    """The price after taking off `rate` (0.1 = 10 %)."""
    return round(price * (1 - rate), 2)
