"""Small helpers for words."""


def first_word(text):
    return text.split()[0] if text.split() else ""
