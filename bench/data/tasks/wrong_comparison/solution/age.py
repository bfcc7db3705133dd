ADULT_AGE = 18


def is_adult(age):
    """True for people who are 18 or older."""
    return age >= ADULT_AGE
