from grades import grade


def test_top():
    assert grade(95) == "A"
    assert grade(85) == "B"


def test_middle():
    assert grade(70) == "C"


def test_fail():
    assert grade(42) == "F"
