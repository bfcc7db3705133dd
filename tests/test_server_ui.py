"""The web UI in a real browser (Debian's Chromium through Playwright) against the real server.

The fixtures are tests/ui_support.py's: one loopback uvicorn per module (`start_server` of
tests/fixtures_server.py with a tmp WENSHU_HOME, the demo database and the scripted fake model, whose default answer is the demo question's SQL) and
one headless browser; each test opens a fresh browser context. Screenshots go to the test's tmp dir;
`WENSHU_UPDATE_SCREENSHOT=1` also refreshes docs/screenshot.png.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

import ui_support as ui
from ui_support import CITY_ORDERS, DOCS_SHOT, QUESTION, ask, body_rows, gold

browser, fake, open_page, server = ui.browser, ui.fake, ui.open_page, ui.server  # the shared fixtures


def test_ask_shows_steps_sql_paged_table_csv_and_chart(open_page, server, tmp_path):
    page = open_page(height=1700)  # tall enough for the whole answer in the screenshot
    expected = gold(server[1])
    reply = ask(page, QUESTION)

    assert reply.locator(".answer").inner_text().strip()
    assert "SELECT" in reply.locator(".sql-box code").inner_text()
    nodes = reply.locator(".step").evaluate_all("els => els.map(e => [e.dataset.node, e.dataset.status])")
    assert [n for n, _ in nodes] == ["intent", "recall", "plan", "generate", "validate", "execute", "evaluate", "explain"]
    assert all(s == "ok" for n, s in nodes if n != "plan") and dict(nodes)["plan"] == "skipped"  # no semantic path
    assert all(t.endswith(" ms") for t in reply.locator(".step-ms").all_text_contents())

    assert len(expected) > 20
    assert body_rows(reply) == [[str(v) for v in r] for r in expected[:20]]
    pages = -(-len(expected) // 20)
    assert reply.locator(".page-info").inner_text() == f"Page 1 / {pages}"
    reply.locator(".pager .next").click()
    assert body_rows(reply)[0] == [str(v) for v in expected[20]]
    assert reply.locator(".page-info").inner_text() == f"Page 2 / {pages}"

    with page.expect_download() as info:
        reply.locator(".download-csv").click()
    csv_lines = Path(info.value.path()).read_text(encoding="utf-8-sig").splitlines()
    assert csv_lines[0] == "城市,订单量" and len(csv_lines) == len(expected) + 1
    assert csv_lines[1] == f"{expected[0][0]},{expected[0][1]}"

    reply.locator(".chart svg").first.wait_for()
    assert reply.locator(".chart-type[aria-pressed=true]").get_attribute("data-type") == "bar"
    reply.locator('.chart-type[data-type="line"]').click()
    reply.locator(".chart svg .mark-line").first.wait_for()
    reply.locator('.chart-type[data-type="arc"]').click()
    reply.locator(".chart svg .mark-arc").first.wait_for()
    reply.locator('.chart-type[data-type="table"]').click()
    assert not reply.locator(".chart").is_visible() and reply.locator(".result-table").is_visible()
    reply.locator('.chart-type[data-type="bar"]').click()
    reply.locator(".chart svg .mark-rect").first.wait_for()

    reply.locator(".pager .prev").click()
    page.evaluate("document.querySelector('#messages').scrollTop = 0")
    page.screenshot(path=str(tmp_path / "answer.png"))
    if os.environ.get("WENSHU_UPDATE_SCREENSHOT") == "1":
        DOCS_SHOT.parent.mkdir(exist_ok=True)
        shutil.copy(tmp_path / "answer.png", DOCS_SHOT)


def test_reload_lists_the_conversation_and_reopens_it_from_the_stored_payload(open_page, server, tmp_path):
    page = open_page()
    ask(page, QUESTION)
    cid = page.evaluate("location.hash").removeprefix("#c=")
    assert cid
    page.reload()
    item = page.locator(f'#conversations .conv[data-id="{cid}"]')
    item.wait_for()
    assert page.locator("#conversations .conv").first.get_attribute("data-id") == cid  # newest first
    reply = page.locator(".msg.assistant").last  # reopened from #c=<id>
    reply.locator(".result-table").wait_for()
    page.click("#new-chat")
    page.wait_for_selector(".welcome")
    item.locator(".conv-open").click()
    reply = page.locator(".msg.assistant").last
    reply.locator(".chart svg").first.wait_for()
    assert len(body_rows(reply)) == 20
    assert page.locator(".msg.user .bubble").last.inner_text() == QUESTION
    page.screenshot(path=str(tmp_path / "reloaded.png"))


def test_language_follows_the_browser_switches_and_is_remembered(open_page):
    page = open_page(locale="zh-CN")
    assert page.locator("#new-chat").inner_text() == "新对话"
    assert page.locator("#question").get_attribute("placeholder").startswith("输入")
    reply = ask(page, QUESTION)
    assert reply.locator(".steps-summary span").first.text_content() == "执行步骤"
    page.click("#lang")
    assert page.locator("#new-chat").inner_text() == "New chat"
    assert page.locator("html").get_attribute("lang") == "en"
    assert reply.locator(".steps-summary span").first.text_content() == "Steps"  # rendered labels follow
    assert reply.locator('.chart-type[data-type="line"]').inner_text() == "Line"
    page.reload()
    page.wait_for_selector("#datasource option", state="attached")
    assert page.locator("#new-chat").inner_text() == "New chat"


def test_stop_ends_a_slow_answer_and_stores_it_as_stopped(open_page, fake, tmp_path):
    fake.delay_s = 0.25  # ~20 streamed pieces: several seconds unless stopped
    page = open_page()
    page.fill("#question", QUESTION)
    page.click("#send")
    page.wait_for_selector('.msg.assistant .step[data-node="generate"]')
    page.locator(".msg.assistant .answer.streaming").wait_for()
    assert page.locator("#stop").is_visible() and not page.locator("#send").is_visible()
    started = time.monotonic()
    page.click("#stop")
    reply = page.locator('.msg.assistant[data-status="stopped"]')
    reply.wait_for(timeout=5_000)
    assert time.monotonic() - started < 3
    assert reply.locator(".stopped-note").inner_text() == "Stopped."
    queue = reply.locator(".step").first  # the server's queue step, sent when the question was accepted
    assert queue.get_attribute("data-node") == "queue" and queue.get_attribute("data-status") == "ok"
    assert queue.locator(".step-name").inner_text() == "Queue"
    assert page.locator("#send").is_visible()
    page.screenshot(path=str(tmp_path / "stopped.png"))
    fake.delay_s = 0.0
    page.reload()
    page.locator('.msg.assistant[data-status="stopped"]').wait_for()


def test_waiting_questions_see_their_place_in_the_queue_move(browser, server):
    """One answer worker, as with the embedded model: the second and third questions wait in a visible queue."""
    from fixtures_server import start_server

    from wenshu.providers.fake import ScriptedChatModel
    from wenshu.settings import Settings

    slow = ScriptedChatModel(default=f"```sql\n{CITY_ORDERS}\n```", delay_s=0.25)  # streams for seconds
    live = start_server(Settings(home=server[1], rate_limit_per_minute=0, server_workers=1), slow)
    contexts = [browser.new_context(locale="zh-CN") for _ in range(3)]
    try:
        first, second, third = (ctx.new_page() for ctx in contexts)
        for page in (first, second, third):
            page.set_default_timeout(10_000)
            page.goto(live.url + "/")
            page.wait_for_selector("#datasource option", state="attached")
        first.fill("#question", QUESTION)
        first.click("#send")
        first.locator(".msg.assistant .answer.streaming").wait_for()  # the only worker is busy
        for page in (second, third):
            page.fill("#question", QUESTION)
            page.click("#send")
            page.locator('.msg.assistant [data-testid="status"]').filter(has_text="排队中").wait_for()
        status = third.locator('.msg.assistant [data-testid="status"]')
        assert status.inner_text() == "排队中，前面还有 1 个问题。"
        assert second.locator('.msg.assistant [data-testid="status"]').inner_text() == "排队中，下一个就是你。"
        first.click("#stop")  # the second starts: the third moves up
        status.filter(has_text="下一个就是你").wait_for(timeout=5_000)
        slow.delay_s = 0.0
        for page in (second, third):
            page.wait_for_selector('.msg.assistant[data-status="ok"]', timeout=30_000)
            assert page.locator('.msg.assistant [data-testid="status"]').inner_text() == ""
    finally:
        for ctx in contexts:
            ctx.close()
        live.stop()


def test_api_errors_show_as_readable_messages(open_page):
    page = open_page()
    page.goto(page.url.split("#")[0] + "#c=no-such-conversation")
    page.reload()
    banner = page.locator("#banner")
    banner.wait_for(timeout=30_000)  # the first request after a reload can be slow while other tests load the CPU
    assert "no-such-conversation" in banner.inner_text()
    page.wait_for_selector(".welcome")


def test_db_in_the_address_selects_that_datasource(open_page, server, tmp_path):
    """`wenshu desktop --db NAME` opens `/?db=NAME`: the picker starts on NAME; an unknown name keeps the
    default."""
    import httpx

    shop = tmp_path / "shop.sqlite"
    with sqlite3.connect(shop) as conn:
        conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)")
    with httpx.Client(base_url=server[0], timeout=30) as http:
        made = http.post("/api/datasources", json={"name": "shop", "url": f"sqlite:///{shop}"})
        assert made.status_code == 201, made.text
        try:
            page = open_page()
            assert page.locator("#datasource").input_value() == "demo"  # the server's default
            for asked, shown in (("shop", "shop"), ("nope", "demo")):
                page.goto(f"{server[0]}/?db={asked}")
                page.wait_for_selector("#datasource option", state="attached")
                assert page.locator("#datasource").input_value() == shown
        finally:
            http.delete("/api/datasources/shop")


def test_a_failed_answer_shows_the_error_in_the_chat(open_page, fake):
    fake.queue(*["DELETE FROM orders"] * 3)  # refused three times: the graph falls back
    page = open_page()
    reply = ask(page, QUESTION, status="error")
    box = reply.locator(".error-box")
    assert box.get_attribute("data-code") == "unanswerable"
    assert box.inner_text().startswith("Error:")
    assert reply.locator('.step[data-node="validate"][data-status="error"]').count() >= 1
    assert reply.locator('.step[data-status="error"] .step-detail').first.inner_text().strip()  # the reason is shown


def test_send_waits_until_the_page_has_opened_its_conversation(open_page):
    # CI once lost a question sent while the page was still loading: opening the first conversation (after the
    # conversation list) replaced the message list, the question's reply with it. Hold that list request.
    held = []

    def hold_first_list(route):
        if held:
            route.continue_()
        else:
            held.append(route)

    page = open_page(setup=lambda ctx: ctx.route("**/api/conversations", hold_first_list))
    page.fill("#question", QUESTION)
    assert page.locator("#send").is_disabled()
    page.press("#question", "Enter")  # the keyboard path waits too
    assert page.locator(".msg").count() == 0
    assert held, "the page never asked for its conversation list"
    held[0].continue_()
    reply = ask(page, QUESTION)  # Send is enabled once the page is ready; the reply stays in the list
    assert reply.locator(".answer").inner_text().strip()
    assert page.locator(".msg.user").count() == 1


def test_phone_width_has_no_horizontal_overflow_and_a_drawer(open_page, tmp_path):
    page = open_page(width=390, height=844)
    reply = ask(page, QUESTION)
    reply.locator(".chart svg").first.wait_for()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    box = reply.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    sidebar = page.locator("#sidebar")
    assert sidebar.bounding_box()["x"] + sidebar.bounding_box()["width"] <= 0  # off-canvas
    page.screenshot(path=str(tmp_path / "phone.png"))
    page.click("#menu")
    page.wait_for_function("document.querySelector('#sidebar').getBoundingClientRect().left >= 0")
    assert page.locator("#conversations .conv").count() >= 1
    page.screenshot(path=str(tmp_path / "phone-drawer.png"))
    page.click("#backdrop", position={"x": 380, "y": 400})
    page.wait_for_function("document.querySelector('#sidebar').getBoundingClientRect().right <= 0")


def test_token_from_settings_is_sent_as_bearer(open_page):
    page = open_page()
    seen = []
    page.on("request", lambda r: seen.append(r.headers.get("authorization")) if "/api/" in r.url else None)
    page.click("#settings")
    page.fill("#token", "tok-123")
    page.click("#settings-form button[type=submit]")
    page.wait_for_function("localStorage.getItem('wenshu.token') === 'tok-123'")
    page.wait_for_timeout(300)
    assert seen and all(h == "Bearer tok-123" for h in seen)


def test_sse_parser_handles_split_chunks_comments_and_crlf(open_page):
    page = open_page()
    events = page.evaluate("""async () => {
        const { parseSse } = await import("/static/api.js");
        const text = ': ping\\r\\n\\r\\nevent: node\\r\\ndata: {"node": "intent", "status": "started"}\\r\\n\\r\\n'
            + 'event: token\\ndata: {"text": "SEL"}\\n\\nevent: done\\ndata: {"status": "ok"}\\n\\n';
        const out = [];
        let buffer = "";
        for (let i = 0; i < text.length; i += 7) {  // arbitrary chunk boundaries
            const [evs, rest] = parseSse(buffer + text.slice(i, i + 7));
            buffer = rest;
            out.push(...evs);
        }
        return out;
    }""")
    assert events == [
        {"type": "node", "data": {"node": "intent", "status": "started"}},
        {"type": "token", "data": {"text": "SEL"}},
        {"type": "done", "data": {"status": "ok"}},
    ]
