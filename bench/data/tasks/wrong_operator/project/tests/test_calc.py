from calc import add, mul


def test_add():
    assert add(2, 3) == 5


def test_mul():
    assert mul(4, 5) == 20
