from age import is_adult


def test_child():
    assert not is_adult(12)


def test_eighteen_is_adult():
    assert is_adult(18)
