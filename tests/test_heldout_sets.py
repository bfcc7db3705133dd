"""Spider's held-out questions stay out of the repository: Spider-DK and its Chinese version spider_dk_zh
(validation: they decide by ablation whether a mechanism stays) and spider_dev_test (the Spider dev questions outside spider_dev_200: only
reported). None of their questions may appear verbatim (case, spaces and punctuation aside) in the
product's code, prompts, tests, bench code or docs. A question worded exactly like one of
spider_dev_200, the development set, is not held out (Spider-DK repeats some Spider dev questions).
Skipped, with the reason, where the Spider data is not next to the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.datasets import resolve_set, shared_bench_dir
from test_demo_split import SCANNED, norm, scanned_files

ROOT = Path(__file__).resolve().parents[1]
OWN_FILE = Path("bench/data/spider_dk_zh.json")
MIN_CHARS = 16  # shorter questions ("How many singers?") are too generic to call a copy
MIN_CJK_CHARS = 8  # a Chinese character says about what an English word does


def min_chars(question: str) -> int:
    return MIN_CJK_CHARS if re.search("[\u4e00-\u9fff]", question) else MIN_CHARS


def held_out() -> list[str]:
    if not (shared_bench_dir() / "spider_dk").exists():
        pytest.skip(f"the Spider data is not at {shared_bench_dir()}")
    sets = {n: resolve_set(n, db_dir=None, tables=None, demo_db=None)[1]
            for n in ("spider_dev_200", "spider_dk", "spider_dk_zh", "spider_dev_test")}  # fmt: skip
    dev = {norm(i.question) for i in sets["spider_dev_200"]}
    return sorted({i.question for n in ("spider_dk", "spider_dk_zh", "spider_dev_test") for i in sets[n]
                   if norm(i.question) not in dev and len(norm(i.question)) >= min_chars(i.question)})  # fmt: skip


def found_in(questions: list[str], root: Path) -> list[tuple[str, str]]:
    wanted = {norm(q): q for q in questions}
    out = []
    for path in scanned_files(root, SCANNED):
        if path == root / OWN_FILE:
            continue  # the Chinese validation set's own file
        whole = norm(path.read_text(encoding="utf-8", errors="ignore"))
        out += [(q, str(path.relative_to(root))) for n, q in wanted.items() if n in whole]
    return out


def test_no_held_out_spider_question_is_in_the_repository():
    questions = held_out()
    assert len(questions) > 700
    found = found_in(questions, ROOT)
    assert not found, "held-out Spider questions copied: " + "; ".join(f"{q!r} in {f}" for q, f in found)


def test_the_check_finds_a_planted_question(tmp_path):
    question = held_out()[0]
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(f"Q = {question.upper()!r}\n", encoding="utf-8")
    assert found_in([question], tmp_path) == [(question, "tests/test_x.py")]
