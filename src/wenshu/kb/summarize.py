"""Document summaries, in the background: one per segment by the chat model, merged into one.

A document is searchable before it has a summary (status `summarizing`); this step fills summaries in
and moves it to `ready`. Each segment's summary is stored as soon as it is made, so a stopped run
resumes where it stopped. Segments are runs of consecutive chunks of up to SEGMENT_TOKENS. Prompts:
`prompts/kb_summary_segment.md` and `prompts/kb_summary_merge.md`.
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.messages import HumanMessage

from wenshu.knowledge.schema_block import estimate_tokens
from wenshu.prompts import render
from wenshu.storage.kb_store import KbChunk, KbDocument, KbDocuments

SEGMENT_TOKENS = 1500
SUMMARY_TOKENS = 200
MAX_SEGMENTS = 40  # a very long document is summarised from evenly spaced segments


def segments(chunks: list[KbChunk], budget: int = SEGMENT_TOKENS) -> list[str]:
    out: list[list[str]] = [[]]
    used = 0
    for c in chunks:
        size = estimate_tokens(c.text)
        if out[-1] and used + size > budget:
            out.append([])
            used = 0
        out[-1].append(f"{c.heading}\n{c.text}" if c.heading else c.text)
        used += size
    texts = ["\n\n".join(parts) for parts in out if parts]
    if len(texts) > MAX_SEGMENTS:
        step = len(texts) / MAX_SEGMENTS
        texts = [texts[int(i * step)] for i in range(MAX_SEGMENTS)]
    return texts


class Summarizer:
    def __init__(self, docs: KbDocuments, models):
        self.docs, self.models = docs, models  # models: providers.base.ModelClient

    def _ask(self, prompt: str) -> str:
        return self.models.text("fast", [HumanMessage(prompt)], max_tokens=SUMMARY_TOKENS).strip()

    def summarize(self, doc: KbDocument, progress: Callable[[str, int, int], None] | None = None) -> str:
        progress = progress or (lambda *_: None)
        title = doc.title or doc.name
        parts = segments(self.docs.chunks_of(doc.id))
        done = self.docs.segment_summaries(doc.id)
        label = f"summarizing {doc.name}"
        progress(label, len(done), len(parts) + 1)
        for i, text in enumerate(parts):
            if i not in done:
                done[i] = self._ask(render("kb_summary_segment", title=title, part=i + 1, parts=len(parts), text=text))
                self.docs.put_segment_summary(doc.id, i, done[i])
            progress(label, len(done), len(parts) + 1)
        if len(parts) == 1:
            summary = done[0]
        else:
            listed = "\n".join(f"{i + 1}. {done[i]}" for i in range(len(parts)))
            summary = self._ask(render("kb_summary_merge", title=title, summaries=listed))
        self.docs.finish_summary(doc.id, summary)
        progress(label, len(parts) + 1, len(parts) + 1)
        return summary
