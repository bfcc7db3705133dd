from prices import discounted


def test_ten_percent_off():
    assert discounted(100) == 90


def test_custom_rate():
    assert discounted(80, rate=0.25) == 60
