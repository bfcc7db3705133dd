from text import shout, slugify


def test_shout():
    assert shout("hi") == "HI!"


def test_slugify():
    assert slugify("Hello World") == "hello-world"
    assert slugify("  GMV  by Region ") == "gmv-by-region"
