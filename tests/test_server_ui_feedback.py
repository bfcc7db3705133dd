"""Thumbs up / down under the latest answer in a real browser against the real server (the fixtures of
tests/ui_support.py, as test_server_ui.py): a 👎 reaches POST /api/conversations/{id}/feedback, whose effect is
read back from the app store and the answer cache; only the latest answer has the buttons; a failed request
shows the server's error."""

from __future__ import annotations

import httpx
import ui_support as ui
from ui_support import QUESTION, ask

browser, fake, open_page, server = ui.browser, ui.fake, ui.open_page, ui.server  # the shared fixtures

ASKED = "订单量按城市排一下"  # asked only here: its first answer is learned and cached by this module alone
SERVER_SETTINGS = {"answer_cache_ttl_s": 3600}  # on, as in the product (tests/conftest.py turns it off elsewhere)


def learned(home, cid: str) -> list[str]:
    """The statuses of the example pairs learned from conversation `cid`, as the app store has them."""
    from wenshu.bootstrap import open_store
    from wenshu.settings import Settings

    with open_store(Settings(home=home)) as store:
        return [e.status for e in store.examples.by_conversation(cid)]


def answered_from_cache(http) -> bool:
    """Whether a new conversation's ASKED was answered by the answer cache (its one trace step)."""
    answer = http.post("/api/ask", json={"message": ASKED}).json()
    assert answer["error"] is None
    return [s["node"] for s in answer["trace"]] == ["answer_cache"]


def test_thumbs_down_rejects_the_learned_pair_and_forgets_the_cached_answer(open_page, server, fake):
    url, home = server
    fake.queue("DELETE FROM orders")  # refused once, then the city SQL: a validation retry, so a pair is learned
    page = open_page()
    reply = ask(page, ASKED)
    cid = page.evaluate("location.hash").removeprefix("#c=")
    assert learned(home, cid) == ["pending"]
    with httpx.Client(base_url=url, timeout=60) as http:
        assert answered_from_cache(http)  # a first answer is cached

        up, down = reply.locator('[data-testid="feedback-up"]'), reply.locator('[data-testid="feedback-down"]')
        assert up.inner_text() == "👍" and up.get_attribute("aria-label") == "Good answer"
        assert down.get_attribute("title") == "Wrong answer: do not learn from it"
        assert not up.is_disabled() and down.get_attribute("aria-pressed") == "false"
        down.click()
        reply.locator('[data-testid="feedback"][data-verdict="down"]').wait_for()
        assert down.get_attribute("aria-pressed") == "true" and up.get_attribute("aria-pressed") == "false"
        assert up.is_disabled() and down.is_disabled()
        assert reply.locator(".error-box").count() == 0
        assert learned(home, cid) == ["rejected"]
        assert not answered_from_cache(http)  # forgotten: the graph answered afresh
    page.click("#lang")  # the buttons' labels follow the language
    assert up.get_attribute("aria-label") == "回答正确" and down.get_attribute("title") == "回答有误：不要从中学习"


def test_only_the_latest_answer_has_buttons_and_a_failed_verdict_shows_the_error(open_page, server):
    page = open_page(locale="zh-CN")
    first = ask(page, QUESTION)
    assert first.locator('[data-testid="feedback"]').count() == 1
    page.fill("#question", "只看北京")
    page.click("#send")
    first.locator('[data-testid="feedback"]').wait_for(state="detached")  # gone once a newer question is asked
    page.wait_for_function("() => document.querySelectorAll('.msg.assistant[data-status=\"ok\"]').length === 2")
    latest = page.locator(".msg.assistant").last
    latest.locator('[data-testid="feedback"]').wait_for()  # placed once the answer's status is ok: no race
    assert page.locator('[data-testid="feedback"]').count() == 1 and latest.locator('[data-testid="feedback"]').count() == 1

    page.reload()  # reopened from the stored messages: still only under the latest
    page.locator('.msg.assistant[data-status="ok"]').nth(1).wait_for()
    page.locator(".msg.assistant").last.locator('[data-testid="feedback"]').wait_for()
    assert page.locator('[data-testid="feedback"]').count() == 1
    assert page.locator(".msg.assistant").last.locator('[data-testid="feedback"]').count() == 1

    cid = page.evaluate("location.hash").removeprefix("#c=")
    with httpx.Client(base_url=server[0], timeout=30) as http:
        assert http.delete(f"/api/conversations/{cid}").status_code == 200  # gone meanwhile (another tab)
    latest = page.locator(".msg.assistant").last
    latest.locator('[data-testid="feedback-up"]').click()
    box = latest.locator('[data-testid="feedback"] .error-box')
    box.wait_for()
    assert box.get_attribute("data-code") == "conversation_not_found"
    assert box.inner_text() == f"错误: 找不到会话「{cid}」。"
    assert not latest.locator('[data-testid="feedback-up"]').is_disabled()  # the user may try again
    assert latest.locator('[data-testid="feedback-up"]').get_attribute("aria-pressed") == "false"
