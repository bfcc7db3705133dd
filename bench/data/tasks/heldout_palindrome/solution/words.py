"""Small helpers for words."""


def first_word(text):
    return text.split()[0] if text.split() else ""


def is_palindrome(text):
    letters = text.replace(" ", "").lower()
    return letters == letters[::-1]
