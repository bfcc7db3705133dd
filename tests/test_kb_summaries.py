"""Document summaries with the scripted fake model: one per segment, then merged; the document is
searchable before and `ready` after; a run stopped by a model failure resumes where it stopped."""

from __future__ import annotations

import pytest

from wenshu.errors import ModelFailure
from wenshu.providers.base import ModelClient


@pytest.fixture
def models(fake_model):
    return ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake")


def long_markdown(path, sections: int = 12):
    body = "".join(f"## 第{i}节 仓库{i}号的作业规范\n\n" + f"仓库{i}号每天处理{100 + i}单，拣货差错率低于千分之{i}。" * 12 + "\n\n"
                   for i in range(1, sections + 1))
    path.write_text("# 仓储作业手册\n\n" + body, encoding="utf-8")
    return path


def test_segments_are_summarised_then_merged_and_the_document_becomes_ready(kb, tmp_path, models, fake_model):
    doc = kb.add([long_markdown(tmp_path / "manual.md")])[0].document
    assert doc.status == "summarizing" and kb.search("仓库3号每天处理多少单").found  # searchable before its summary
    fake_model.queue("第一部分：仓库1至4号。", "第二部分：仓库5至8号。", "第三部分：仓库9至12号。", "仓储作业手册：12个仓库的作业规范。")
    seen = []
    (done,) = kb.summarize(models, progress=lambda stage, n, total: seen.append((stage, n, total)))
    assert done.status == "ready" and done.summary == "仓储作业手册：12个仓库的作业规范。"
    assert len(fake_model.calls) == 4
    first = fake_model.calls[0][-1].content
    assert "part (1 of 3)" in first and "仓储作业手册" in first and "<<<\n" in first and "仓库1号" in first
    merge = fake_model.calls[-1][-1].content
    assert "1. 第一部分" in merge and "3. 第三部分" in merge
    assert seen[-1] == ("summarizing manual.md", 4, 4)
    assert kb.summarize(models) == []  # nothing left to do


def test_a_stopped_summary_resumes_with_the_segments_left(kb, tmp_path, models, fake_model):
    kb.add([long_markdown(tmp_path / "manual.md")])
    fake_model.queue("第一部分。", RuntimeError("the model server went away"))
    with pytest.raises(ModelFailure):
        kb.summarize(models)
    (doc,) = kb.list()
    assert doc.status == "summarizing" and kb.docs.segment_summaries(doc.id) == {0: "第一部分。"}
    fake_model.queue("第二部分。", "第三部分。", "全文摘要。")
    (done,) = kb.summarize(models)
    assert done.summary == "全文摘要。" and len(fake_model.calls) == 2 + 3  # segment 1 was not asked again


def test_a_short_document_needs_one_call_and_reindex_starts_summaries_over(kb, kb_docs, models, fake_model):
    kb.add([kb_docs[3]])
    fake_model.queue("指标手册：GMV和复购率的口径。")
    (done,) = kb.summarize(models)
    assert done.summary == "指标手册：GMV和复购率的口径。" and len(fake_model.calls) == 1
    (redone,) = kb.reindex(everything=True)
    assert redone.document.status == "summarizing" and kb.docs.segment_summaries(done.id) == {}
