"""Files to Markdown: markitdown's converters, called directly for the format the extension names.

The format is decided by the file's extension from an allowlist, then checked against the file's first
bytes (a PDF starts with `%PDF-`, DOCX/PPTX/XLSX are ZIP packages), so a damaged or mislabelled file is
refused with a clear error instead of being read as text. markitdown's own format sniffing (magika, an
ONNX model) is not used: nothing is downloaded or guessed at run time.

Headings stay Markdown headings and tables Markdown tables. A PDF is converted page by page (kb/pdf.py)
and PPTX slides are marked by markitdown's slide comments: both become `PAGE` markers for the chunker.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from wenshu.kb.errors import KbEmpty, KbEncrypted, KbTooLarge, KbUnreadable, KbUnsupportedFormat
from wenshu.kb.pdf import split_pages, unwrap

FORMATS = {".pdf": "pdf", ".docx": "docx", ".pptx": "pptx", ".xlsx": "xlsx", ".html": "html", ".htm": "html",
           ".md": "md", ".markdown": "md", ".txt": "txt", ".csv": "csv"}
PAGE = "\f"  # page break in the parsed text
ZIP_RATIO = 40  # an Office file may unpack to at most this many times the size limit (zip bombs)
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # encrypted Office files are OLE containers, not ZIP packages
_SLIDE = re.compile(r"^<!-- Slide number: \d+ -->\s*$", re.M)
_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.M)


@dataclass(frozen=True)
class Parsed:
    markdown: str  # pages separated by PAGE where the format has pages
    title: str
    pages: int | None


def file_format(name: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix not in FORMATS:
        raise KbUnsupportedFormat(name, suffix, sorted(FORMATS))
    return FORMATS[suffix]


def check_size(name: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise KbTooLarge(name, size, max_bytes)
    if size == 0:
        raise KbEmpty(name)


def _decode(name: str, data: bytes) -> str:
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        raise KbUnreadable(name, "not text in a known encoding")
    return str(best)


def _check_package(name: str, data: bytes, max_bytes: int) -> None:
    if data.startswith(_OLE):
        raise KbEncrypted(name)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = set(z.namelist())
            unpacked = sum(i.file_size for i in z.infolist())
    except zipfile.BadZipFile as err:
        raise KbUnreadable(name, "not a valid Office file") from err
    if "[Content_Types].xml" not in names:
        raise KbUnreadable(name, "not a valid Office file")
    if unpacked > ZIP_RATIO * max_bytes:
        raise KbTooLarge(name, unpacked, ZIP_RATIO * max_bytes)


def _converter(fmt: str):
    from markitdown import converters as c

    return {"pdf": c.PdfConverter, "docx": c.DocxConverter, "pptx": c.PptxConverter, "xlsx": c.XlsxConverter,
            "html": c.HtmlConverter, "csv": c.CsvConverter}[fmt]()


def _is_encryption(err: BaseException) -> bool:
    seen: BaseException | None = err
    while seen is not None:
        if "password" in type(seen).__name__.lower() or "encrypt" in type(seen).__name__.lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _convert(name: str, fmt: str, data: bytes) -> tuple[str, str | None]:
    """(markdown, title) by markitdown's converter for the format."""
    from markitdown import StreamInfo

    suffix = next(s for s, f in FORMATS.items() if f == fmt)
    info = StreamInfo(extension=suffix, filename=name, charset="utf-8" if fmt in ("csv", "html") else None)
    try:
        result = _converter(fmt).convert(io.BytesIO(data), info)
    except Exception as err:  # noqa: BLE001 - every parser failure is one per-file error
        if _is_encryption(err):
            raise KbEncrypted(name) from err
        raise KbUnreadable(name, type(err).__name__) from err
    return result.markdown or "", result.title


def to_markdown(name: str, fmt: str, data: bytes, max_bytes: int) -> tuple[str, str | None]:
    if fmt == "pdf":
        if b"%PDF-" not in data[:1024]:
            raise KbUnreadable(name, "not a PDF file")
        pages, title = split_pages(name, data)
        return PAGE.join(unwrap(_convert(name, fmt, page)[0].strip()) for page in pages), title
    if fmt in ("docx", "pptx", "xlsx"):
        _check_package(name, data, max_bytes)
        text, title = _convert(name, fmt, data)
        return (_SLIDE.sub(PAGE, text) if fmt == "pptx" else text), title
    text = _decode(name, data)
    if fmt in ("html", "csv"):
        return _convert(name, fmt, text.encode("utf-8"))
    return text, None


def parse_bytes(name: str, data: bytes, max_bytes: int) -> Parsed:
    """Parse one file's bytes; raises a KbFileError (unsupported, too large, encrypted, unreadable, empty)."""
    fmt = file_format(name)
    check_size(name, len(data), max_bytes)
    markdown, title = to_markdown(name, fmt, data, max_bytes)
    markdown = markdown.replace("\r\n", "\n").replace("\x00", "")
    if not markdown.replace(PAGE, "").strip():
        raise KbEmpty(name)
    if fmt == "pptx":
        markdown = markdown.lstrip(PAGE + "\n")  # the first slide's marker starts the text
    pages = markdown.count(PAGE) + 1 if fmt in ("pdf", "pptx") else None
    heading = _H1.search(markdown)
    return Parsed(markdown, (heading.group(1) if heading else None) or title or Path(name).stem, pages)
