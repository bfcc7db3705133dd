from signs import sign


def test_positive_and_negative():
    assert sign(5) == 1
    assert sign(-2) == -1


def test_zero():
    assert sign(0) == 0
