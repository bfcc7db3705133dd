from greet import greet


def test_greet():
    assert greet({"first_name": "Li", "last_name": "Wei"}) == "Hello, Li!"
