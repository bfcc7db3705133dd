from metrics import average


def test_average():
    assert average([1, 2, 3]) == 2


def test_empty_average():
    assert average([]) == 0
