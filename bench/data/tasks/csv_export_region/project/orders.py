ORDERS = [
    {"region": "East", "amount": 120.0},
    {"region": "North", "amount": 80.0},
    {"region": "East", "amount": 30.0},
]
