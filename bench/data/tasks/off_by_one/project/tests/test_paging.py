from paging import page


def test_first_page():
    assert page(list("abcdef"), 1, size=2) == ["a", "b"]


def test_empty():
    assert page([], 1) == []
