"""The knowledge-base benchmark's corpus, rendered from Markdown sources into the formats people upload.

`bench/data/kb/docs/*.md` are business documents written for this benchmark (Chinese and English);
`render_corpus` writes each as DOCX, PDF, HTML or Markdown (RENDER_AS), and copies this project's own
`docs/*.md` (but docs/kb.md, which quotes the questions). `long_pdf` writes an N-page operations manual
for the ingest-speed figure. Only the few Markdown blocks the sources use are rendered: headings,
one-line paragraphs and pipe tables.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = Path(__file__).resolve().parent / "data" / "kb" / "docs"
RENDER_AS = {"refund_policy": "docx", "metric_handbook": "pdf", "campaign_plan": "html", "employee_handbook": "docx",
             "membership_program": "md", "logistics_sla": "pdf", "data_security": "html", "supplier_onboarding": "md"}
EXCLUDED_DOCS = {"kb.md"}  # it describes this benchmark and quotes its questions
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def blocks(markdown: str) -> list[tuple]:
    """("h", level, text) | ("p", text) | ("table", rows)."""
    out: list[tuple] = []
    for line in markdown.splitlines():
        line = line.strip()
        if not line:
            continue
        m = _HEADING.match(line)
        if m:
            out.append(("h", len(m.group(1)), m.group(2)))
        elif line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            if out and out[-1][0] == "table":
                out[-1][1].append(cells)
            else:
                out.append(("table", [cells]))
        else:
            out.append(("p", line))
    return out


def to_docx(parts: list[tuple], path: Path) -> None:
    import docx

    d = docx.Document()
    for b in parts:
        if b[0] == "h":
            d.add_heading(b[2], b[1])
        elif b[0] == "p":
            d.add_paragraph(b[1])
        else:
            table = d.add_table(rows=len(b[1]), cols=len(b[1][0]))
            for i, row in enumerate(b[1]):
                for j, value in enumerate(row):
                    table.cell(i, j).text = value
    d.save(path)


def to_html(parts: list[tuple], path: Path, title: str) -> None:
    body = []
    for b in parts:
        if b[0] == "h":
            body.append(f"<h{b[1]}>{html.escape(b[2])}</h{b[1]}>")
        elif b[0] == "p":
            body.append(f"<p>{html.escape(b[1])}</p>")
        else:
            head, *rows = b[1]
            cells = "".join(f"<th>{html.escape(c)}</th>" for c in head)
            trs = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
            body.append(f"<table><thead><tr>{cells}</tr></thead><tbody>{trs}</tbody></table>")
    path.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
                    f"<style>body{{font-family:sans-serif}}</style></head><body>{''.join(body)}</body></html>",
                    encoding="utf-8")


def _pdf_styles():
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    body = ParagraphStyle("body", fontName="STSong-Light", fontSize=10.5, leading=16, wordWrap="CJK", spaceAfter=6)
    return {1: ParagraphStyle("h1", parent=body, fontSize=18, leading=26, spaceAfter=12),
            2: ParagraphStyle("h2", parent=body, fontSize=13, leading=20, spaceBefore=8), 0: body}


def to_pdf(parts: list[tuple], path: Path, title: str, page_break_every: int = 0) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Table, TableStyle

    styles = _pdf_styles()
    story, headings = [], 0
    for b in parts:
        if b[0] == "h":
            headings += b[1] == 2
            if page_break_every and b[1] == 2 and headings > 1 and (headings - 1) % page_break_every == 0:
                story.append(PageBreak())
            story.append(Paragraph(html.escape(b[2]), styles.get(b[1], styles[2])))
        elif b[0] == "p":
            story.append(Paragraph(html.escape(b[1]), styles[0]))
        else:
            table = Table(b[1])
            table.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), "STSong-Light", 10), ("GRID", (0, 0), (-1, -1), 0.5,
                                                                                         "#888888")]))
            story.append(table)
    SimpleDocTemplate(str(path), pagesize=A4, title=title).build(story)


def render(source: Path, fmt: str, out_dir: Path) -> Path:
    text = source.read_text(encoding="utf-8")
    parts = blocks(text)
    title = next((b[2] for b in parts if b[0] == "h"), source.stem)
    target = out_dir / f"{source.stem}.{fmt}"
    if fmt == "docx":
        to_docx(parts, target)
    elif fmt == "html":
        to_html(parts, target, title)
    elif fmt == "pdf":
        to_pdf(parts, target, title, page_break_every=3)
    else:
        shutil.copy(source, target)
    return target


def render_corpus(out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    files = [render(SOURCES / f"{stem}.md", fmt, out_dir) for stem, fmt in RENDER_AS.items()]
    for doc in sorted((ROOT / "docs").glob("*.md")):
        if doc.name not in EXCLUDED_DOCS:
            files.append(Path(shutil.copy(doc, out_dir / doc.name)))
    return files


def long_pdf(path: Path, pages: int = 100) -> Path:
    """An operations manual of `pages` pages, one chapter a page (about 1,000 characters), Chinese and English,
    a table every 5th page."""
    regions = ["华东", "华南", "华北", "西南", "华中"]
    parts: list[tuple] = [("h", 1, "运营手册 Operations Manual")]
    for n in range(1, pages + 1):
        region = regions[n % len(regions)]
        parts.append(("h", 2, f"第 {n} 章 {region}区域运营规范 Chapter {n}"))
        parts.append(("p", f"本章规定{region}区域第 {n} 号仓库的作业流程。拣货员每班次须完成 {300 + n * 7} 单，"
                           f"差错率不得高于 0.{n % 9 + 1}%。出现超时订单时，班组长须在 {10 + n % 20} 分钟内上报区域经理。"))
        parts.append(("p", f"Warehouse {n} in the {region} region receives inbound trucks between 6 am and 2 pm. "
                           f"Each dock handles at most {12 + n % 6} trucks a day, and pallets must be scanned "
                           f"within {15 + n % 10} minutes of unloading. Returns are inspected within "
                           f"{n % 3 + 1} days."))
        parts.append(("p", f"安全要求：叉车作业区限速每小时 {5 + n % 4} 公里，消防通道宽度不少于 {1.5 + (n % 3) * 0.5} 米，"
                           "每月组织一次消防演练并记录在案。设备点检表须由当班主管签字确认。"))
        parts.append(("p", f"交接班要求：每班次结束前 {20 + n % 15} 分钟开始盘点在途订单，未完成的订单须逐单登记原因，"
                           f"并在交接系统中指派给下一班次的责任人。连续 {2 + n % 3} 个班次未完成的订单自动升级到区域经理，"
                           "由区域经理在当天协调库存、运力或客服资源处理。"))
        parts.append(("p", f"Quality checks: every {50 + n % 40}th outbound parcel is weighed again and compared "
                           "with the "
                           "system weight; a difference above five percent stops the line until a supervisor has "
                           "checked the order. Damaged goods found at inbound are photographed and reported to the "
                           f"supplier within {n % 4 + 1} working days, and the supplier's claim number is written on "
                           "the pallet label."))
        parts.append(("p", f"培训与考核：新员工入职后须完成 {8 + n % 8} 小时的岗前培训，考试合格后方可独立上岗。"
                           f"每季度的技能考核成绩低于 {60 + n % 20} 分的员工须参加复训，复训后仍不合格的调整岗位。"
                           "优秀班组每月评选一次，奖金按班组人数平均分配。"))
        if n % 5 == 0:
            parts.append(("table", [["指标 KPI", "目标 Target", "考核周期"], ["准时发货率", f"{95 + n % 5}%", "月度"],
                                    ["库存准确率", "99.5%", "季度"], ["客户投诉率", f"0.{n % 7 + 1}%", "月度"]]))
    to_pdf(parts, path, "Operations Manual", page_break_every=1)
    return path
