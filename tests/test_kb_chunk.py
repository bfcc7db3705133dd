"""Chunking by structure then tokens, and PDF line re-joining: pure functions on text."""

from __future__ import annotations

from wenshu.kb.chunk import chunk, embedding_text, sections
from wenshu.kb.parse import PAGE
from wenshu.kb.pdf import unwrap


def test_sections_follow_headings_and_pages_but_not_code_fences():
    text = ("# Guide\n\nIntro line that is long enough to stand alone as a section.\n\n## Setup\n\n"
            "```\n# not a heading\n```\nRun the installer and wait until it finishes completely.\n"
            + PAGE + "Still the setup section, continued on the next page of the file.\n\n"
            "### Linux\n\nUse the package manager of your distribution to install it.")
    got = [(s.heading, s.page) for s in sections(text, paged=True)]
    assert got == [("Guide", 1), ("Guide > Setup", 1), ("Guide > Setup", 2), ("Guide > Setup > Linux", 2)]
    assert "# not a heading" in sections(text, paged=True)[1].text


def test_long_sections_split_by_sentences_with_table_headers_repeated():
    rows = "\n".join(f"| 仓库{i} | {i * 10}单 |" for i in range(60))
    text = "# 手册\n\n## 规则\n\n" + "拣货员每班次须完成三百单，差错率不得高于千分之一。" * 30 + f"\n\n## 表\n\n| 仓库 | 单量 |\n| --- | --- |\n{rows}\n"
    chunks = chunk(text, paged=False)
    rules = [c for c in chunks if c.heading == "手册 > 规则"]
    assert len(rules) > 1 and all(c.text.endswith("。") for c in rules)  # cut at sentence ends
    tables = [c for c in chunks if c.heading == "手册 > 表"]
    assert len(tables) > 1 and all(c.text.startswith("| 仓库 | 单量 |\n| --- | --- |") for c in tables)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    again = chunk(text, paged=False)
    assert [c.key("doc") for c in again] == [c.key("doc") for c in chunks]  # ids from content: stable
    assert len({c.key("doc") for c in chunks}) == len(chunks)


def test_embedding_text_carries_title_and_section_once():
    c = chunk("# 指标手册\n\n## GMV\n\nGMV指已支付订单的金额合计，包含运费，不扣除退款金额。", paged=False)[0]
    assert embedding_text("指标手册", c).startswith("指标手册 > GMV\n")
    assert embedding_text("Metrics", c).startswith("Metrics > 指标手册 > GMV\n")


def test_pdf_lines_wrapped_by_the_layout_are_joined():
    page = ("本手册统一公司经营分析中常用指标的计算口径，所有报表和看板须按本手册取数。口径变更\n\n须经数据治理委员会审批。\n\nGMV\n\n"
            "Orders paid before 4 pm are shipped on the same day, and orders paid\n\n"
            "after that are shipped the next day.\n\n"
            "| a | b |\n\n| --- | --- |\n\n| 1 | 2 |")
    assert unwrap(page).split("\n\n") == [
        "本手册统一公司经营分析中常用指标的计算口径，所有报表和看板须按本手册取数。口径变更须经数据治理委员会审批。", "GMV",
        "Orders paid before 4 pm are shipped on the same day, and orders paid after that are shipped the next day.",
        "| a | b |\n| --- | --- |\n| 1 | 2 |"]
