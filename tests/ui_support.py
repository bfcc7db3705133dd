"""The web UI's browser fixtures, shared by the test_*_ui.py files: one loopback uvicorn per test module
(`start_server` of tests/fixtures_server.py with a tmp WENSHU_HOME, the demo database and the scripted fake
model, whose default answer is the demo question's SQL) and one headless Chromium (Debian's, through
Playwright); each test opens a fresh browser context (`open_page`), which fails the test on a JavaScript
error or a request that leaves the server. Importing this module skips the importing test module when
Chromium is missing (fails it under WENSHU_REQUIRE_SERVERS=1).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync", "--disable-quic"]
CITY_ORDERS = (
    "SELECT c.city_name AS 城市, COUNT(*) AS 订单量 FROM orders o JOIN cities c ON o.city_id = c.city_id "
    "WHERE o.status = 1 GROUP BY c.city_name ORDER BY 订单量 DESC, 城市"
)
QUESTION = "每个城市的订单量"
DOCS_SHOT = Path(__file__).resolve().parent.parent / "docs" / "screenshot.png"

if not Path(CHROMIUM).exists():
    reason = f"{CHROMIUM} is missing (Debian package chromium; `make test` installs it)"
    if os.environ.get("WENSHU_REQUIRE_SERVERS") == "1":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason, allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def fake():
    from wenshu.providers.fake import ScriptedChatModel

    return ScriptedChatModel(default=f"```sql\n{CITY_ORDERS}\n```")


@pytest.fixture(scope="module")
def server(request, tmp_path_factory, demo_db_file, fake):
    """The real app (S's `start_server`, shared by one module's tests) on a free loopback port; a module's
    SERVER_SETTINGS (a dict) adds to or replaces the shared settings."""
    from fixtures_server import start_server

    from wenshu.settings import Settings, reset_settings_cache

    home = tmp_path_factory.mktemp("ui") / "home"
    (home / "data").mkdir(parents=True)
    shutil.copy(demo_db_file, home / "data" / "demo.sqlite")
    (home / "projects" / "shop").mkdir(parents=True)  # the folders the assistant may work in
    (home / "projects" / "shop" / "README.md").write_text("# Shop\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WENSHU_HOME", str(home))
        reset_settings_cache()
        shared = {"rate_limit_per_minute": 0, "workspace_roots": [home / "projects"]}
        settings = Settings(**shared | getattr(request.module, "SERVER_SETTINGS", {}))
        live = start_server(settings, fake)
        yield live.url, home
        live.stop()
    reset_settings_cache()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def open_page(browser, server, fake):
    """open_page(locale=..., width=..., height=..., setup=fn(context)) -> a page on the app; fails the test on a
    JS error."""
    contexts, errors, outside = [], [], []
    fake.responses.clear()
    fake.delay_s = 0.0

    def opener(locale="en-US", width=1280, height=860, setup=None):
        ctx = browser.new_context(locale=locale, viewport={"width": width, "height": height}, accept_downloads=True)
        contexts.append(ctx)
        if setup:  # e.g. routes that hold a request, installed before the page loads
            setup(ctx)
        page = ctx.new_page()
        page.set_default_timeout(10_000)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("request", lambda r: r.url.startswith((server[0], "data:", "blob:")) or outside.append(r.url))
        page.goto(server[0] + "/")
        page.wait_for_selector("#datasource option", state="attached")
        return page

    yield opener
    for ctx in contexts:
        ctx.close()
    fake.delay_s = 0.0
    assert not errors, f"JavaScript errors in the page: {errors}"
    assert not outside, f"the UI must work offline, yet it requested: {outside}"


def gold(home: Path) -> list[list]:
    with sqlite3.connect(home / "data" / "demo.sqlite") as conn:
        return [list(r) for r in conn.execute(CITY_ORDERS).fetchall()]


def ask(page, question: str, status: str = "ok"):
    before = page.locator(".msg.assistant").count()
    page.fill("#question", question)
    page.click("#send")
    # generous: the first answer also loads the catalog and the embedder, and the test machine's CPUs are
    # shared (30 s ran out once in CI); any final status of the new reply ends the wait, so a wrong one
    # fails with the reply's text
    try:
        page.wait_for_function("n => { const m = document.querySelectorAll('.msg.assistant');"
                               " return m.length > n && m[m.length - 1].dataset.status; }", arg=before, timeout=60_000)
    except sync_api.TimeoutError:  # say where the answer stood (CI once timed out here with no clue)
        steps = page.locator(".msg.assistant").evaluate_all(
            "ms => ms.map(m => [m.dataset.status || 'none', [...m.querySelectorAll('.step')].map("
            "s => s.dataset.node + ':' + s.dataset.status).join(' '), m.innerText.slice(0, 300)])")
        pytest.fail(f"no final status for {question!r} after 60 s; assistant messages (status, steps, text): {steps}")
    reply = page.locator(".msg.assistant").nth(before)  # this reply, even after newer ones
    assert reply.get_attribute("data-status") == status, reply.inner_text()
    return reply


def body_rows(reply) -> list[list[str]]:
    return reply.locator(".result-table tbody tr").evaluate_all(
        "trs => trs.map(tr => [...tr.cells].map(td => td.textContent))")
