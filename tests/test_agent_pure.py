"""Pure step functions of the agent, tested without a model or a database."""

from wenshu.agent import routing
from wenshu.agent.checks import Answer, run_checks
from wenshu.agent.explain import chitchat_reply, fallback_reply, summarize
from wenshu.agent.generate import GenerateInput, Turn, build_messages
from wenshu.agent.intent import classify_rules, query_type_of
from wenshu.agent.vocabulary import Vocabulary
from wenshu.prompts import render
from wenshu.i18n import detect_lang


def test_language_detection():
    assert detect_lang("上个月每个城市的订单量Top10") == "zh"
    assert detect_lang("top 10 cities by orders") == "en"


def test_rules_gate_decides_clear_cases():
    data = classify_rules("上个月每个城市的订单量Top10", has_history=False)
    assert data.intent == "data" and data.query_type == "top_n" and data.source == "rules"
    assert classify_rules("你好", has_history=False).intent == "chitchat"
    assert classify_rules("hello there", has_history=False).intent == "chitchat"
    assert classify_rules("今天北京天气怎么样", has_history=False).intent == "out_of_scope"
    assert classify_rules("write me a poem about autumn", has_history=False).intent == "out_of_scope"


def test_rules_gate_is_unsure_about_vague_text():
    assert classify_rules("嗯嗯好的那个呢呃", has_history=False) is None
    assert classify_rules("the blue one please", has_history=False) is None


def test_schema_vocabulary_makes_a_question_a_data_question():
    assert classify_rules("华东 的情况", has_history=False, vocabulary=Vocabulary(frozenset({"华东"}))).intent == "data"
    assert classify_rules("华东 的情况", has_history=False) is None  # the gate itself knows no region


def test_the_vocabulary_comes_from_the_catalog_and_the_semantic_model():
    from wenshu.catalog import Catalog, ColumnInfo, TableInfo
    from wenshu.semantic.model import SemanticModel

    catalog = Catalog(datasource="zoo", dialect="sqlite", tables=[TableInfo(name="PetType", columns=[
        ColumnInfo(name="pet_name", type="TEXT"), ColumnInfo(name="kind", type="TEXT", comment="物种"),
        ColumnInfo(name="id", type="INT")])])  # fmt: skip
    semantic = SemanticModel.model_validate({"datasource": "zoo", "measures": [
        {"id": "feed", "zh": "喂食量", "en": "feed amount", "synonyms": ["rations"], "table": "PetType",
         "agg": "sum", "expr": "id"}]})  # fmt: skip
    words = Vocabulary.of(catalog, semantic)
    for said in ("Tell me the pet names", "pettype overview", "各物种的情况", "喂食量怎么样", "the rations please"):
        assert words.mentioned(said), said
    for unrelated in ("rename this file", "I did it", "hello there"):
        assert not words.mentioned(unrelated), unrelated  # whole words only; "id" is too short to count
    assert classify_rules("Tell me the pet names", has_history=False, vocabulary=words).intent == "data"
    acronyms = Vocabulary.of(None, SemanticModel.model_validate({"datasource": "shop", "measures": [
        {"id": "gmv", "zh": "销售额", "en": "GMV", "table": "orders", "agg": "sum", "expr": "amount"}]}))  # fmt: skip
    assert acronyms.mentioned("本月GMV和去年同期比怎么样") and not acronyms.mentioned("gmvx")
    aliased = Vocabulary.of(None, SemanticModel.model_validate({"datasource": "shop", "dimensions": [
        {"id": "area", "zh": "片区", "en": "area", "table": "areas", "column": "name", "aliases": {"江南": ["changed mind"]}}]}))
    assert not aliased.mentioned("what changed in the newest release")  # a value's other names are not the data's words


def test_followups_are_recognised_only_with_history():
    assert classify_rules("只看华东区", has_history=True).followup
    assert classify_rules("那这周呢", has_history=True).followup
    assert classify_rules("按月拆开", has_history=True).query_type == "trend"
    assert classify_rules("和去年同期比呢", has_history=True).followup  # a comparison alone edits the last answer
    assert classify_rules("除了华东以外呢？", has_history=True).followup  # leaving a value out edits it too
    assert classify_rules("excluding the app channel?", has_history=True).followup
    assert classify_rules("what about compared with last year?", has_history=True).followup
    assert not classify_rules("上个月各大区的销售额和客单价分别是多少", has_history=True).followup  # a question of its own
    alone = classify_rules("和去年同期比呢", has_history=False)
    assert alone is None or not alone.followup  # with no conversation it is not a follow-up


def test_query_types():
    assert query_type_of("各品类销售额占比") == "share"
    assert query_type_of("近12个月每月订单量趋势") == "trend"
    assert query_type_of("本月GMV环比变化") == "compare"
    assert query_type_of("列出上周的退款明细") == "detail"
    assert query_type_of("上周订单量和前一周相比变化多少") == "compare"  # 前一周 is the week before, not a top 1
    assert query_type_of("前三名的城市") == "top_n" and query_type_of("前3个月的销售额") == "aggregate"
    assert query_type_of("how many customers are there") == "aggregate"


def test_generate_prompt_puts_the_stable_part_first_and_carries_history_and_feedback():
    inp = GenerateInput(
        question="只看华东区", dialect="sqlite", schema_block="CREATE TABLE orders (...)", today="2026-11-30",
        row_limit=100, examples=[{"question": "q1", "sql": "SELECT 1"}],
        history=[Turn("各区域订单量", "SELECT region_name, COUNT(*) FROM orders GROUP BY 1", "7 rows")],
        previous_sql="SELECT x", feedback="Table `x` does not exist.",
    )
    system, user = build_messages(inp)
    assert "SQLite" in system.content and "CREATE TABLE orders" in system.content and "2026-11-30" in system.content
    assert "只看华东区" not in system.content  # the question stays out of the cached prefix
    assert "SELECT region_name, COUNT(*) FROM orders GROUP BY 1" in user.content
    assert "Table `x` does not exist." in user.content and "SELECT x" in user.content
    assert user.content.rstrip().endswith("SQL:")


def test_prompts_render_by_name():
    assert "Message: hi" in render("intent", tables="a, b", question="hi")


def evaluate_rules(question, query_type, sql, columns, rows, row_count):
    feedback, fired = run_checks(Answer(question, query_type, sql, columns, rows, row_count))
    return type("Verdict", (), {"ok": not fired, "feedback": feedback})


def test_evaluate_rules():
    assert not evaluate_rules("q", "aggregate", "SELECT COUNT(*) FROM t", ["n"], [], 0).ok
    top = evaluate_rules("top 5 cities", "top_n", "SELECT city, COUNT(*) FROM t GROUP BY city", ["c", "n"],
                         [["a", 1]] * 9, 9)
    assert not top.ok and "ORDER BY" in top.feedback
    fine = evaluate_rules("top 5", "top_n", "SELECT c, COUNT(*) n FROM t GROUP BY c ORDER BY n DESC LIMIT 5",
                          ["c", "n"], [["a", 3]], 1)
    assert fine.ok
    counted = evaluate_rules("昨天有哪些订单被取消了？", "detail", "SELECT COUNT(*) FROM orders WHERE status = 2", ["n"], [[16]], 1)
    assert not counted.ok and "list the records" in counted.feedback
    asked = evaluate_rules("列出昨天取消订单的总数", "detail", "SELECT COUNT(*) FROM orders WHERE status = 2", ["n"], [[16]], 1)
    assert asked.ok  # the question itself asks for a count
    listed = evaluate_rules("昨天有哪些订单被取消了？", "detail", "SELECT order_id FROM orders WHERE status = 2", ["id"], [[1]], 1)
    assert listed.ok


def test_summaries_speak_the_users_language():
    rows = [["上海", 120], ["北京", 300]]
    zh = summarize("zh", "top_n", ["城市", "订单量"], rows, 2, False)
    assert "北京" in zh and "300" in zh and "共 2 行" in zh
    en = summarize("en", "trend", ["month", "orders"], [["2026-01", 5], ["2026-02", 9]], 2, False)
    assert "from 5" in en and "to 9" in en
    assert "没有" in summarize("zh", "aggregate", ["n"], [], 0, False)
    assert "问数" in chitchat_reply("zh", "chitchat")
    assert "暂时无法处理该查询" in fallback_reply("zh", ["validate: bad"])
    assert "rephrase" in fallback_reply("en", [])


def test_routing_is_pure_and_bounded():
    base = {"query": {"intent": "data"}, "sql": {"sql": "SELECT 1", "validation": {"passed": False}, "retries": 0},
            "result": {}}
    assert routing.after_intent(base) == "recall"
    assert routing.after_intent({"query": {"intent": "chitchat"}}) == "respond"
    assert routing.after_validate(base, max_retries=2) == "generate"
    spent = {**base, "sql": {**base["sql"], "retries": 2}}
    assert routing.after_validate(spent, max_retries=2) == "fallback"
    ok = {**base, "sql": {"sql": "SELECT 1", "validation": {"passed": True}}}
    assert routing.after_validate(ok, max_retries=2) == "execute"
    assert routing.after_execute({**ok, "result": {"error": None}}, max_retries=2) == "evaluate"
    assert routing.after_execute({**ok, "result": {"error": "boom"}}, max_retries=2) == "generate"
    unhappy = {**ok, "result": {"verdict": {"ok": False}}}
    assert routing.after_evaluate(unhappy, max_rounds=2) == "generate"
    assert routing.after_evaluate({**unhappy, "sql": {"eval_rounds": 2}}, max_rounds=2) == "explain"
