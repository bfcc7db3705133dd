def safe_div(a, b):
    return a / b
