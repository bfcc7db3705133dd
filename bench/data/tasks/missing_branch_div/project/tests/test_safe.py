from safe import safe_div


def test_plain():
    assert safe_div(6, 3) == 2


def test_by_zero():
    assert safe_div(1, 0) is None
