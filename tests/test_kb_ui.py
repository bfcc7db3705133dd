"""The knowledge base in the web UI, in Chromium against the real server (the browser, server and page
fixtures of tests/ui_support.py): upload with the button and by dropping files on the page, a toast per
file that follows it to ready or to its own error, the document list with summaries and remove, and
citations under an answer that open their passage."""

from __future__ import annotations

import pytest
import ui_support as ui
from fixtures_kb import CUSTOM_RULE, PLATINUM_RULE, bad_set, good_set

browser, server, open_page = ui.browser, ui.server, ui.open_page  # the shared browser fixtures (module scope)

SUMMARY = "文档摘要：退款、会员与指标的规定。"
WATCH = """() => { window.kbSeen = {};
  new MutationObserver(() => { for (const t of document.querySelectorAll('.kb-toast')) {
      const seen = window.kbSeen[t.dataset.name] ||= [];
      if (seen[seen.length - 1] !== t.dataset.status) seen.push(t.dataset.status); } })
    .observe(document.body, {subtree: true, attributes: true, childList: true}); }"""


@pytest.fixture(scope="module")
def fake():
    """Overrides ui_support's: here the model only writes document summaries."""
    from wenshu.providers.fake import ScriptedChatModel

    return ScriptedChatModel(default=SUMMARY)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kb-ui")
    return {p.name: p for p in [*good_set(folder / "good"), *bad_set(folder / "bad").values()]}


def toast(page, name: str, status: str):  # files are ingested one by one: a busy machine takes a while
    return page.wait_for_selector(f'.kb-toast[data-name="{name}"][data-status="{status}"]', timeout=90_000)


def doc_row(page, name: str):
    return page.locator(f'.kb-doc[data-name="{name}"]')


def assistant_mode_on(page) -> bool:
    page.wait_for_load_state("networkidle")  # the page has asked the knowledge base whether it has documents
    return page.is_checked("#assistant-mode")


def test_the_assistant_switch_turns_on_with_documents_until_the_user_chooses(open_page, server, files):
    """With no stored choice the chat's Assistant switch (documents are read by the assistant, not the data
    pipeline) follows the knowledge base: off while it is empty, on once an upload completes and on a fresh
    page while it lists a document; the user's flip is stored and wins."""
    import httpx

    page = open_page(locale="en-US")
    assert not assistant_mode_on(page)  # no document yet: every question goes to the data pipeline
    page.click("[data-testid=kb-open]")
    page.set_input_files("[data-testid=kb-file]", [files["metrics.md"]])
    toast(page, "metrics.md", "ready")
    page.wait_for_function("document.querySelector('#assistant-mode').checked")
    assert page.locator("#assistant-folder").is_visible()  # turned on as by a click: its folder picker shows
    assert page.evaluate("localStorage.getItem('wenshu.mode')") is None  # not the user's choice
    page.reload()
    assert assistant_mode_on(page)  # a fresh page: the knowledge base lists a document

    page.uncheck("#assistant-mode")  # the user's choice: stored, and it wins over the documents
    assert page.evaluate("localStorage.getItem('wenshu.mode')") == "data"
    page.reload()
    assert not assistant_mode_on(page)
    with httpx.Client(base_url=server[0], timeout=30) as http:  # the next tests start from an empty knowledge base
        for doc in http.get("/api/kb/documents").json()["items"]:
            assert http.delete(f"/api/kb/documents/{doc['id']}").status_code == 200


def test_upload_with_the_button_shows_progress_errors_summaries_and_remove(open_page, files, fake, tmp_path):
    page = open_page(locale="en-US")
    fake.delay_s = 1.0  # a summary takes a moment, so its stage shows
    page.evaluate(WATCH)
    page.click("[data-testid=kb-open]")
    page.wait_for_selector(".kb-docs .empty")
    page.set_input_files("[data-testid=kb-file]", [files["metrics.md"], files["secret.pdf"], files["campaign.html"]])

    bad = toast(page, "secret.pdf", "error")
    assert bad.get_attribute("data-code") == "kb_encrypted"
    assert "'secret.pdf' is password-protected" in bad.inner_text() and "error" in bad.inner_text()
    toast(page, "metrics.md", "ready")
    toast(page, "campaign.html", "ready")
    seen = page.evaluate("window.kbSeen")["metrics.md"]
    assert seen[0] == "uploading" and seen[-1] == "ready" and "summarizing" in seen, seen
    assert set(seen) <= {"uploading", "queued", "parsing", "chunking", "embedding", "summarizing", "ready"}

    page.wait_for_selector('.kb-doc[data-name="metrics.md"] .kb-doc-summary')
    assert doc_row(page, "metrics.md").get_attribute("data-status") == "ready"
    assert doc_row(page, "metrics.md").locator(".kb-doc-summary").inner_text() == SUMMARY
    assert doc_row(page, "metrics.md").locator(".kb-doc-status").inner_text() == "ready"
    assert doc_row(page, "secret.pdf").count() == 0  # a file that cannot be added is no document
    page.screenshot(path=tmp_path / "kb-documents.png")

    page.once("dialog", lambda d: d.accept())
    doc_row(page, "metrics.md").locator(".kb-doc-remove").click()
    doc_row(page, "metrics.md").wait_for(state="detached")
    assert doc_row(page, "campaign.html").count() == 1


def test_dropping_files_on_the_page_uploads_them_in_chinese(open_page, files):
    page = open_page(locale="zh-CN")
    drop = page.evaluate_handle("""([name, text]) => { const dt = new DataTransfer();
        dt.items.add(new File([text], name, {type: 'text/markdown'}));
        dt.items.add(new File([new Uint8Array([0, 1, 2, 250])], 'notes.bin'));
        return dt; }""", ["退货说明.md", "# 退货说明\n\n" + "生鲜商品签收后 48 小时内可申请退货，需提供照片。\n"])
    page.dispatch_event("main", "dragenter", {"dataTransfer": drop})
    assert page.locator("[data-testid=kb-drop]").is_visible()
    assert page.locator("[data-testid=kb-drop]").inner_text() == "松开鼠标，把文件加入知识库"
    page.dispatch_event("main", "drop", {"dataTransfer": drop})
    assert not page.locator("[data-testid=kb-drop]").is_visible()
    unsupported = toast(page, "notes.bin", "error")
    assert "「notes.bin」：不支持「.bin」格式" in unsupported.inner_text() and "失败" in unsupported.inner_text()
    done = toast(page, "退货说明.md", "ready")
    assert "就绪" in done.inner_text()
    page.click("[data-testid=kb-open]")
    assert doc_row(page, "退货说明.md").locator(".kb-doc-status").inner_text() == "就绪"


def test_citations_open_their_passage(open_page, server, files, tmp_path):
    import httpx

    from wenshu.assistant.state import AssistantResponse, Citation
    from wenshu.bootstrap import open_store
    from wenshu.settings import Settings

    url, home = server
    with httpx.Client(base_url=url, timeout=60) as http:
        http.post("/api/kb/documents", files=[("files", (n, files[n].read_bytes())) for n in
                                              ("membership.pdf", "退款政策 (v2).docx")])
        platinum = http.get("/api/kb/search", params={"q": PLATINUM_RULE}).json()["passages"][0]
        custom = http.get("/api/kb/search", params={"q": CUSTOM_RULE}).json()["passages"][0]
    cited = [Citation(document=p["document"], document_id=p["document_id"], chunk_id=p["chunk_id"],
                      section=p["heading"], page=p["page"], passage=p["text"]) for p in (platinum, custom)]
    cited[1] = cited[1].model_copy(update={"passage": ""})  # read back from GET /api/kb/chunks/{id}
    answer = AssistantResponse(answer="白金会员需年消费满一万元；定制商品不支持无理由退款。", route="agent", citations=cited)
    with open_store(Settings(home=home)) as store:
        cid = store.conversations.create("local", "demo")
        store.conversations.add_message(cid, "user", "白金会员怎么升级？定制商品能退吗？")
        store.conversations.add_message(cid, "assistant", answer.answer, payload=answer.model_dump(mode="json"))

    page = open_page(locale="en-US")
    page.goto(f"{url}/#c={cid}")
    page.reload()
    links = page.locator("[data-testid=citation]")
    links.first.wait_for()
    assert links.all_inner_texts() == ["[1] membership.pdf · p. 2", f"[2] 退款政策 (v2).docx · {custom['heading']}"]
    assert "[1]" not in page.locator(".msg.assistant .answer").inner_text()
    links.nth(0).click()
    passage = page.locator("[data-testid=passage]")
    assert passage.locator(".passage-doc").inner_text() == "membership.pdf"
    assert passage.locator(".passage-where").inner_text() == "p. 2"
    assert PLATINUM_RULE in passage.locator(".passage-text").inner_text()
    passage.locator(".passage-close").click()
    links.nth(1).click()
    page.wait_for_function("document.querySelector('.passage-text').textContent.includes('定制商品')")
    assert CUSTOM_RULE in passage.locator(".passage-text").inner_text()
    page.screenshot(path=tmp_path / "kb-passage.png")
    assert passage.locator(".passage-doc").inner_text() == "退款政策 (v2).docx"
