from counts import word_count


def test_word_count():
    assert word_count("the cat saw The dog") == {"the": 2, "cat": 1, "saw": 1, "dog": 1}
