"""The task panel of the web UI, in Chromium against the real server (the browser and page fixtures of
tests/ui_support.py) with the scripted fake model and real pytest runs: a task started from the panel shows
each step live and ends green with its diff; Apply writes the change into the folder; Stop, Resume and
Discard (which leaves the folder as it was); a folder without tests and a folder outside the server's
workspace roots show their sentences."""

from __future__ import annotations

import shutil

import pytest
import ui_support as ui
from tasks_support import CALC, CALC_FIXED, PATH, TEST_CALC, calc_project, flat, snapshot, step, write

browser, open_page = ui.browser, ui.open_page  # the shared browser fixtures (module scope)

FIX = flat(step("run_command", "ls", reason="see the files"), step("write_file", "calc.py", CALC_FIXED, reason="a plus"),
           step("finish", reason="the test should pass now"))
WAIT = 90_000  # a task runs pytest twice or more; the test machine's CPUs are shared
WATCH = """() => { window.taskSeen = [];
  new MutationObserver(() => {
      const rows = [...document.querySelectorAll('.task-step')].map(r => r.dataset.n + ':' + r.dataset.state);
      const ended = !document.querySelector('[data-testid=task-ending]').hidden;
      const now = rows.join(',') + (ended ? '|ended' : '');
      if (window.taskSeen[window.taskSeen.length - 1] !== now) window.taskSeen.push(now); })
    .observe(document.body, {subtree: true, attributes: true, childList: true}); }"""


@pytest.fixture(scope="module")
def fake():
    """Overrides ui_support's: here the model only decides task steps, one queued answer each."""
    from wenshu.providers.fake import ScriptedChatModel

    return ScriptedChatModel()


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    return tmp_path_factory.mktemp("task-ui") / "projects"


@pytest.fixture(scope="module")
def server(tmp_path_factory, demo_db_file, fake, roots):
    """The real app with one workspace root, on a free loopback port (ui_support's, plus the root)."""
    from fixtures_server import start_server

    from wenshu.settings import Settings

    home = tmp_path_factory.mktemp("task-ui-home")
    (home / "data").mkdir(parents=True)
    shutil.copy(demo_db_file, home / "data" / "demo.sqlite")
    roots.mkdir(parents=True)
    live = start_server(Settings(home=home, rate_limit_per_minute=0, workspace_path=PATH, workspace_roots=[roots]),
                        fake)
    live.state.workspace_tasks.overrides = {"env": {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}}
    yield live.url, home
    live.stop()


def start(page, folder, goal: str = "make the failing test pass"):
    if page.locator("[data-testid=tasks-dialog]").is_visible():  # opening lists the folders as they are now
        page.click("[data-testid=tasks-dialog] .kb-close")
    page.click("[data-testid=tasks-open]")
    page.wait_for_selector(f'[data-testid=task-folder] option[value="{folder.resolve()}"]', state="attached")
    page.select_option("[data-testid=task-folder]", str(folder.resolve()))
    page.fill("[data-testid=task-goal]", goal)
    page.click("[data-testid=task-start]")


def ended(page, status: str):
    return page.wait_for_selector(f'[data-testid=task-view][data-status="{status}"] [data-testid=task-ending]',
                                  timeout=WAIT)


def test_a_task_from_the_panel_shows_its_steps_live_ends_green_with_its_diff_and_applies(open_page, fake, roots,
                                                                                           tmp_path):
    folder = write(roots / "shop", {"calc.py": CALC, "tests/test_calc.py": TEST_CALC})
    before = snapshot(folder)
    page = open_page(locale="en-US")
    page.evaluate(WATCH)
    fake.delay_s = 0.5  # each decision takes a moment, so the steps come one by one
    fake.queue(*FIX)
    start(page, folder)
    ended(page, "solved")

    rows = page.locator(".task-step")
    shown = rows.evaluate_all("""rs => rs.map(r => [r.dataset.action, r.querySelector('.task-step-target')?.textContent
        ?? '', r.querySelector('.task-step-reason')?.textContent ?? '', r.dataset.state])""")
    assert shown == [["verify", "", "", "failed"], ["run_command", "ls", "see the files", "ok"],
                     ["write_file", "calc.py", "a plus", "ok"], ["finish", "", "the test should pass now", "ok"],
                     ["verify", "", "", "ok"]]
    assert rows.nth(0).locator(".task-step-action").inner_text() == "Tests before the work"
    assert "assert -1 == 5" in rows.nth(0).locator(".task-step-summary").inner_text()
    assert rows.nth(4).locator(".task-step-state").inner_text() == "tests pass"
    seen = page.evaluate("window.taskSeen")
    assert seen[-1].endswith("|ended") and not any(s.endswith("|ended") for s in seen[:-1])
    assert any(s.endswith("5:running") for s in seen), seen  # the verify was shown before its result
    counts = [s.count(":") for s in seen]
    assert counts == sorted(counts) and len(set(counts)) >= 4, seen  # step by step, live
    assert page.locator("[data-testid=task-verify]").inner_text() == "tests pass"
    assert page.locator("[data-testid=task-message]").inner_text().startswith("tests pass")
    assert "Done: the tests pass in a clean copy" in page.locator("[data-testid=task-message]").inner_text()
    assert "+    return a + b" in page.locator("[data-testid=task-diff]").inner_text()
    assert page.locator(".task-diff .diff-del").first.inner_text().startswith("-") and snapshot(folder) == before
    page.screenshot(path=tmp_path / "task-solved.png")

    page.click("[data-testid=task-apply]")
    ended(page, "applied")
    assert (folder / "calc.py").read_text() == CALC_FIXED
    assert "Applied to the folder: calc.py." in page.locator("[data-testid=task-message]").inner_text()
    assert page.locator("[data-testid=task-apply]").is_hidden()
    past = page.locator('.task-past[data-status="applied"]')
    past.wait_for()
    assert past.locator(".task-past-open").inner_text() == "make the failing test pass"


def test_stop_resume_discard_and_the_errors_show_in_chinese(open_page, server, fake, roots, tmp_path):
    folder = write(roots / "store", {"calc.py": CALC, "tests/test_calc.py": TEST_CALC})
    before = snapshot(folder)
    page = open_page(locale="zh-CN")
    fake.delay_s = 1.5
    fake.queue(step("run_command", "ls -a"), *FIX)
    start(page, folder, "让失败的测试通过")
    page.wait_for_selector('.task-step[data-n="2"]', timeout=WAIT)  # the baseline ran, the model is slow
    page.click("[data-testid=task-stop]")
    ended(page, "interrupted")
    assert "任务被中断；文件夹保持原样" in page.locator("[data-testid=task-message]").inner_text()
    assert page.locator("[data-testid=task-apply]").is_hidden() and snapshot(folder) == before
    fake.delay_s = 0.0
    page.click("[data-testid=task-resume]")
    ended(page, "solved")
    assert page.locator("[data-testid=task-verify]").inner_text() == "测试通过"
    assert page.locator(".task-step").last.locator(".task-step-action").inner_text() == "在干净副本中验证"
    task_id = page.get_attribute("[data-testid=task-view]", "data-task-id")
    page.wait_for_selector(f'.task-past[data-id="{task_id}"]')
    page.once("dialog", lambda d: d.accept())
    page.click("[data-testid=task-discard]")
    page.wait_for_selector("[data-testid=task-view]", state="hidden")
    page.wait_for_selector(f'.task-past[data-id="{task_id}"]', state="detached")
    assert snapshot(folder) == before and (folder / "calc.py").read_text() == CALC
    assert not (server[1] / "tasks" / task_id).exists()

    untested = write(roots / "untested", {"calc.py": CALC})  # verify finds no test: the task ends there
    fake.queue(step("finish", reason="done"))
    start(page, untested, "让失败的测试通过")
    ended(page, "no_tests")
    assert "在此文件夹中没有找到测试，无法验证改动，任务到此结束" in page.locator("[data-testid=task-message]").inner_text()
    assert page.locator('[data-testid=task-ending]').get_attribute("data-code") == "no_tests"

    outside = calc_project(tmp_path / "outside")  # a page that names another folder gets the server's refusal
    tasks = sorted((server[1] / "tasks").iterdir())
    page.evaluate("""p => { const s = document.querySelector('[data-testid=task-folder]');
        s.append(new Option('outside', p)); s.value = p; }""", str(outside))
    page.click("[data-testid=task-start]")
    error = page.wait_for_selector('[data-testid=task-error][data-code="workspace_not_allowed"]')
    assert error.inner_text().startswith(f"服务器不允许在文件夹「{outside}」中工作")
    assert sorted((server[1] / "tasks").iterdir()) == tasks
