"""The web UI's plan chips and the Assistant switch in a real browser against the real server (the fixtures
of tests/ui_support.py, as test_server_ui.py)."""

from __future__ import annotations


import ui_support as ui
from ui_support import ask, body_rows, gold

browser, fake, open_page, server = ui.browser, ui.fake, ui.open_page, ui.server  # the shared fixtures


def test_plan_chips_rerun_a_changed_plan_without_the_model(open_page, server, fake):
    """A planned answer shows its plan as chips; removing one re-runs the plan, with no model call."""
    import httpx

    plan = {"measures": ["paid_orders"], "dimensions": ["city_tier"], "share": True}
    with httpx.Client(base_url=server[0], timeout=30) as http:
        first = http.post("/api/ask", json={"message": "订单量 · 城市等级 · 占比", "plan": plan}).json()
    assert first["plan"]["plan"] == plan
    calls = len(fake.calls)
    page = open_page(locale="zh-CN")
    page.goto(f"{server[0]}/#c={first['conversation_id']}")
    page.reload()  # only the hash changed: load the app on it
    reply = page.locator(".msg.assistant").last
    reply.locator('[data-testid="chips"] .chip').first.wait_for()
    kinds = reply.locator(".chip").evaluate_all("els => els.map(e => e.dataset.kind)")
    assert kinds == ["measure", "dimension", "share"]
    reply.locator('.chip[data-kind="share"] [data-testid="chip-remove"]').click()
    rerun = page.locator(".msg.assistant").last
    page.wait_for_function("() => document.querySelectorAll('.msg.assistant[data-status=\"ok\"]').length === 2")
    assert page.locator(".msg.user .bubble").last.inner_text() == "去掉「占比」"
    assert rerun.locator(".chip").evaluate_all("els => els.map(e => e.dataset.kind)") == ["measure", "dimension"]
    assert [r[0] for r in body_rows(rerun)] == ["一线", "新一线", "二线", "其他"]
    assert len(fake.calls) == calls  # neither the first plan nor the chip asked the model


def test_assistant_mode_shows_tool_steps_keeps_them_on_reload_and_answers_data_as_before(open_page, server, fake,
                                                                                         tmp_path):
    import json

    def step(action: str, **arguments) -> str:
        return json.dumps({"action": action, "arguments": arguments})

    page = open_page()
    assert page.locator("#assistant-folder").is_hidden()
    page.check("#assistant-mode")
    fake.queue("<think>A report needs numbers.</think>" + step("query_database", question="how many orders in total"),
               "SELECT COUNT(*) AS n FROM orders",
               json.dumps({"action": "final", "answer": "There are 120,000 orders in total."}))
    reply = ask(page, "Please write last week's weekly report")
    assert reply.locator('[data-testid="answer"]').inner_text() == "There are 120,000 orders in total."
    thinking = reply.locator('[data-testid="thinking"]')  # a reasoning model's thinking: its own row, folded
    assert thinking.count() == 1 and thinking.locator("details").get_attribute("open") is None
    assert thinking.locator("summary").text_content() == "Thinking"
    assert thinking.locator(".thinking-text").text_content() == "A report needs numbers."
    tool = reply.locator('.step[data-node="tool"]')
    assert tool.count() == 1 and tool.get_attribute("data-status") == "ok"  # in the folded panel: text_content
    assert tool.locator(".step-name").text_content() == "query_database"
    detail = tool.locator(".step-detail").text_content()
    assert detail.startswith('{"question":"how many orders in total"} → ') and "120" in detail
    route = reply.locator('.step[data-node="route"] .step-detail').text_content()
    assert route == "tools and skills · a skill fits the request"  # the route, then the rule that chose it
    assert reply.locator('.step[data-node="decide"]').count() == 2
    reply.locator(".steps-summary").click()
    page.screenshot(path=str(tmp_path / "assistant.png"))

    page.reload()  # the conversation reopens from #c=<id>; the switch is remembered
    stored = page.locator(".msg.assistant").last
    stored.locator('.step[data-node="tool"]').wait_for(state="attached")
    assert page.is_checked("#assistant-mode")
    assert stored.locator('[data-testid="answer"]').inner_text() == "There are 120,000 orders in total."
    assert stored.locator('.step[data-node="tool"] .step-detail').text_content() == detail

    calls = len(fake.calls)
    page.fill("#question", "各城市的订单量")
    page.click("#send")
    page.wait_for_function("() => document.querySelectorAll('.msg.assistant[data-status=\"ok\"]').length === 2")
    data = page.locator(".msg.assistant").last
    data.locator(".chart svg").first.wait_for()
    assert body_rows(data) == [[str(v) for v in r] for r in gold(server[1])[:20]]  # as a data answer shows it
    nodes = data.locator(".step").evaluate_all("els => els.map(e => e.dataset.node)")
    assert nodes[:2] == ["intent", "recall"] and "tool" not in nodes and "decide" not in nodes  # the pipeline's trace
    assert "SELECT" in data.locator(".sql-box code").inner_text()
    assert len(fake.calls) == calls + 1  # the pipeline's one generation: no assistant step before it

    from test_assistant_wide import SQL_MONTHS, SQL_REGIONS, WIDE_ZH

    fake.queue(SQL_REGIONS, SQL_MONTHS)  # a question too wide for one query: a sub-question each
    page.fill("#question", WIDE_ZH)
    page.click("#send")
    page.wait_for_function("() => document.querySelectorAll('.msg.assistant[data-status=\"ok\"]').length === 3")
    wide = page.locator(".msg.assistant").last
    subs = wide.locator('.step[data-node="subquestion"] .step-detail').evaluate_all("els => els.map(e => e.textContent)")
    assert [s.split(" → ")[0] for s in subs] == ["上个月各大区的GMV", "今年每个月的退款率"]
    parts = wide.locator('[data-testid="part"]')
    assert parts.count() == 2 and parts.nth(0).locator(".part-question").inner_text() == "1. 上个月各大区的GMV"
    assert "SUM(o.pay_amount)" in parts.nth(0).locator(".sql-box code").inner_text()
    assert parts.nth(1).locator(".result-table tbody tr").count() >= 1

    folder = page.locator("#assistant-folder")  # the folders of the server's workspace_roots, for the assistant
    assert folder.locator("option").all_text_contents() == ["No folder", "projects", "projects/shop"]
    folder.select_option(label="projects/shop")
    fake.queue(step("list_files", path="."), json.dumps({"action": "final", "answer": "The shop has a README."}))
    page.fill("#question", "what files are in the folder?")
    page.click("#send")
    page.wait_for_function("() => document.querySelectorAll('.msg.assistant[data-status=\"ok\"]').length === 4")
    listed = page.locator(".msg.assistant").last
    assert listed.locator('.step[data-node="tool"] .step-name').text_content() == "list_files"
    assert "README.md" in listed.locator('.step[data-node="tool"] .step-detail').text_content()
