"""PDF specifics: one markitdown conversion per page (exact page numbers), and wrapped lines re-joined.

markitdown joins a PDF's pages into one text, and only marks page breaks when no page holds a table, so
the file is split into one-page PDFs with pypdfium2 (pdfplumber's own PDF engine, already installed)
and each is converted on its own. pdfium also tells an encrypted file from a damaged one, and reads
the title from the file's metadata.

Text extracted from a PDF keeps the layout's line breaks, often as separate paragraphs, which would
cut sentences in two at chunk boundaries. `unwrap` joins a line to the next when it fills the page
width and does not end a sentence; short lines (headings, list items) and table rows stay as they are.
"""

from __future__ import annotations

import io
import re

from wenshu.kb.errors import KbEncrypted, KbUnreadable

_CJK = re.compile(r"[\u3000-\u9fff\uf900-\ufaff\uff00-\uffef]")
_ENDS = tuple("。！？；：.!?;:」』》)）\"'")
WRAPPED = 0.8  # a line at least this share of the page's longest line width is taken as wrapped


def split_pages(name: str, data: bytes) -> tuple[list[bytes], str | None]:
    """(each page as a one-page PDF, the document's title from its metadata); raises KbEncrypted or
    KbUnreadable."""
    import pypdfium2 as pdfium

    try:
        src = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as err:
        if "password" in str(err).lower():
            raise KbEncrypted(name) from err
        raise KbUnreadable(name, "not a readable PDF") from err
    pages = []
    try:
        title = (src.get_metadata_dict(skip_empty=True).get("Title") or "").strip()
        title = None if title.lower() in ("", "untitled") else title
        for i in range(len(src)):
            one = pdfium.PdfDocument.new()
            try:
                one.import_pages(src, [i])
                buf = io.BytesIO()
                one.save(buf)
            finally:
                one.close()
            pages.append(buf.getvalue())
    finally:
        src.close()
    return pages, title


def _width(line: str) -> int:
    return len(line) + len(_CJK.findall(line))  # a CJK character is about two Latin ones wide


def _join(left: str, right: str) -> str:
    if left.endswith("-") and right[:1].islower():
        return left[:-1] + right
    if _CJK.match(left[-1]) or _CJK.match(right[0]):
        return left + right
    return f"{left} {right}"


def unwrap(text: str) -> str:
    """Re-join lines the PDF layout wrapped; paragraphs stay separated by a blank line."""
    lines = [ln.strip() for ln in text.split("\n")]
    widest = max((_width(ln) for ln in lines if ln and not ln.startswith("|")), default=0)
    paragraphs: list[str] = []
    open_line = False  # the last paragraph's last line was wrapped: the next line continues it
    for line in lines:
        if not line:
            continue
        if open_line and paragraphs and not line.startswith("|"):
            paragraphs[-1] = _join(paragraphs[-1], line)
        elif line.startswith("|") and paragraphs and paragraphs[-1].startswith("|"):
            paragraphs[-1] += "\n" + line  # a table's rows stay one block
        else:
            paragraphs.append(line)
        open_line = (not line.startswith("|") and not line.endswith(_ENDS) and widest > 0
                     and _width(line) >= WRAPPED * widest)
    return "\n\n".join(paragraphs)
