from ranking import top_cities


def test_top_two():
    counts = {"上海": 120, "北京": 200, "杭州": 80}
    assert top_cities(counts, 2) == ["北京", "上海"]
