def safe_div(a, b):
    if b == 0:
        return None
    return a / b
