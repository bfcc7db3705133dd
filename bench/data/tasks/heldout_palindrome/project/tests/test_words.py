from words import first_word, is_palindrome


def test_first_word():
    assert first_word("hello there") == "hello"


def test_is_palindrome():
    assert is_palindrome("Never odd or even")
    assert is_palindrome("abba")
    assert not is_palindrome("abc")
