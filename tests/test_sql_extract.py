from wenshu.sql.extract import extract_sql

import pytest


@pytest.mark.parametrize(
    "text, expected",
    [
        ("SELECT 1", "SELECT 1"),
        ("SELECT * FROM orders;", "SELECT * FROM orders"),
        ("  SELECT * FROM orders ;  \n", "SELECT * FROM orders"),
        ("```sql\nSELECT * FROM orders;\n```", "SELECT * FROM orders"),
        ("```SQL\nSELECT * FROM orders\n```", "SELECT * FROM orders"),
        ("```\nselect id from t\n```", "select id from t"),
        ("SQL: SELECT city FROM orders;", "SELECT city FROM orders"),
        ("sql:\nSELECT city FROM orders", "SELECT city FROM orders"),
        ('{"sql": "SELECT 1;"}', "SELECT 1"),
        ("<sql>SELECT 3</sql>", "SELECT 3"),
        ("WITH t AS (SELECT 1 AS x) SELECT x FROM t", "WITH t AS (SELECT 1 AS x) SELECT x FROM t"),
        ("select count(*) from orders", "select count(*) from orders"),
    ],
)
def test_plain_and_fenced(text, expected):
    assert extract_sql(text) == expected


def test_leading_prose_fence_and_trailing_explanation():
    text = (
        "Here is the query:\n\n```sql\n-- top cities\nSELECT city, COUNT(*) AS n\nFROM orders\n"
        "GROUP BY city\nORDER BY n DESC\nLIMIT 10;\n```\n\nThis query counts orders per city."
    )
    assert extract_sql(text) == "SELECT city, COUNT(*) AS n\nFROM orders\nGROUP BY city\nORDER BY n DESC\nLIMIT 10"


def test_prose_without_fence():
    text = "Here is the query: SELECT name FROM users WHERE id = 3;\nIt returns the user's name."
    assert extract_sql(text) == "SELECT name FROM users WHERE id = 3"


def test_trailing_explanation_after_blank_line_without_semicolon():
    text = "SELECT a\nFROM t\nWHERE b = 'it''s'\n\nThis query returns a."
    assert extract_sql(text) == "SELECT a\nFROM t\nWHERE b = 'it''s'"


def test_trailing_bullets_are_dropped():
    text = "SELECT city, COUNT(*) FROM orders GROUP BY city\n\n- The first column is the city\n- The second is the count"
    assert extract_sql(text) == "SELECT city, COUNT(*) FROM orders GROUP BY city"


def test_capitalised_identifiers_are_not_prose():
    text = "The query is:\nSELECT\n    Total,\n    City AS c\nFROM t\nNote: Total is in USD."
    assert extract_sql(text) == "SELECT\n    Total,\n    City AS c\nFROM t"


def test_chinese_prose_around_sql():
    text = "查询如下：SELECT city, SUM(amount) AS 金额 FROM orders GROUP BY city;\n说明：按城市汇总金额。"
    assert extract_sql(text) == "SELECT city, SUM(amount) AS 金额 FROM orders GROUP BY city"


def test_chinese_prose_with_fence_and_chinese_literal():
    text = "以下是SQL：\n```\nselect * from t where name = '北京，上海'\n```\n这个查询返回所有记录。"
    assert extract_sql(text) == "select * from t where name = '北京，上海'"


def test_chinese_prose_glued_to_sql():
    assert extract_sql("对应的SQL是SELECT COUNT(*) FROM orders。") == "SELECT COUNT(*) FROM orders"


def test_unclosed_fence():
    assert extract_sql("Sure! Here's the SQL:\n```sql\nSELECT a FROM t\n") == "SELECT a FROM t"


def test_inline_code():
    assert extract_sql("Use `SELECT COUNT(*) FROM orders` to count.") == "SELECT COUNT(*) FROM orders"


def test_non_sql_fence_is_skipped():
    text = "```python\nprint('select * from x')\n```\nSQL: SELECT 2"
    assert extract_sql(text) == "SELECT 2"


def test_sql_fence_preferred_over_unlabelled_fence():
    text = "```\nsome output\n```\n```sql\nSELECT 5\n```"
    assert extract_sql(text) == "SELECT 5"


def test_write_statements_are_returned_for_the_validator():
    assert extract_sql("DELETE FROM orders WHERE id = 1") == "DELETE FROM orders WHERE id = 1"
    assert extract_sql("```sql\nDROP TABLE orders;\n```") == "DROP TABLE orders"


def test_stacked_statements_are_kept_together():
    assert extract_sql("SELECT 1; DROP TABLE users;") == "SELECT 1; DROP TABLE users"


def test_keyword_in_leading_comment_is_not_the_start():
    assert extract_sql("```sql\n-- select the best rows\nSELECT a FROM t\n```") == "SELECT a FROM t"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n ",
        None,
        "I cannot answer that question with the available data.",
        "抱歉，数据库中没有相关的数据，无法回答这个问题。",
        "You can select the rows you want from the table.",
        "Use SELECT to read data.",
        "Please update the question with a date range.",
        "```python\nprint(1)\n```",
    ],
)
def test_no_sql(text):
    assert extract_sql(text) is None
