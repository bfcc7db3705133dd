from timer import countdown


def test_countdown_ends_at_zero():
    assert countdown(3) == [3, 2, 1, 0]
