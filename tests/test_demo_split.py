"""The demo gold set's dev/test split (gold_split.yaml) and the leak check on its test half; the same
check on the validation half of the business questions (bench/data/biz_questions.yaml and
biz4_questions.yaml).

The test half is only reported: none of its questions may appear, verbatim or nearly so, in the
product's code, prompts, tests, bench code or docs. The check normalizes text (case, spaces and
punctuation removed) and finds a question either as a substring or as a line (at most three times
the question's length) that holds nearly all of its character trigrams, so a copy with one word
changed is caught too. Vendored third-party files and bench results are not scanned.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import wenshu.demo

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = Path(wenshu.demo.__file__).parent / "data"
SCANNED = ("src", "tests", "bench", "docs", "README.md", "Makefile")
BIZ_FILE = ROOT / "bench" / "data" / "biz_questions.yaml"  # business questions written after the split
SKIPPED = {DATA_DIR / "gold.yaml", DATA_DIR / "gold_split.yaml", BIZ_FILE, ROOT / "bench" / "data" / "biz2_questions.yaml",
           ROOT / "bench" / "data" / "biz3_questions.yaml", ROOT / "bench" / "data" / "biz4_questions.yaml",
           ROOT / "bench" / "data" / "biz5_questions.yaml", ROOT / "bench" / "data" / "biz6_questions.yaml",
           ROOT / "bench" / "data" / "biz7_questions.yaml", ROOT / "bench" / "data" / "biz8_questions.yaml",
           ROOT / "bench" / "data" / "biz9_questions.yaml", ROOT / "bench" / "data" / "biz10_questions.yaml",
           ROOT / "bench" / "data" / "biz11_questions.yaml", ROOT / "bench" / "data" / "biz12_questions.yaml",
           ROOT / "bench" / "data" / "biz13_questions.yaml",
           ROOT / "bench" / "data" / "biz14_questions.yaml",
           ROOT / "bench" / "data" / "biz15_questions.yaml",
           ROOT / "bench" / "data" / "biz16_questions.yaml",
           ROOT / "bench" / "data" / "biz17_questions.yaml",
           ROOT / "bench" / "data" / "biz18_questions.yaml",
           ROOT / "bench" / "data" / "biz19_questions.yaml",
           ROOT / "bench" / "data" / "biz20_questions.yaml",
           ROOT / "bench" / "data" / "biz21_questions.yaml",
           ROOT / "bench" / "data" / "biz22_questions.yaml",
           ROOT / "bench" / "data" / "biz23_questions.yaml",
           ROOT / "bench" / "data" / "biz24_questions.yaml",
           ROOT / "bench" / "data" / "biz25_questions.yaml",
           ROOT / "bench" / "data" / "biz26_questions.yaml",
           ROOT / "bench" / "data" / "biz27_questions.yaml",
           ROOT / "bench" / "data" / "biz28_questions.yaml",
           ROOT / "bench" / "data" / "biz29_questions.yaml",
           ROOT / "bench" / "data" / "biz30_questions.yaml",
           ROOT / "bench" / "data" / "biz31_questions.yaml"}
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".json", ".txt", ".html", ".js", ".css", ".sql", ""}
NEAR = 0.85  # share of a question's trigrams one line must hold to count as a near copy


def norm(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).casefold()


def trigrams(text: str) -> set[str]:
    return {text[i:i + 3] for i in range(len(text) - 2)}


def gold() -> list[dict]:
    return yaml.safe_load((DATA_DIR / "gold.yaml").read_text(encoding="utf-8"))


def split() -> dict:
    return yaml.safe_load((DATA_DIR / "gold_split.yaml").read_text(encoding="utf-8"))


def scanned_files(root: Path, where: tuple[str, ...] = SCANNED):
    for name in where:
        base = root / name
        paths = [base] if base.is_file() else base.rglob("*") if base.is_dir() else []
        for p in paths:
            if p.is_file() and p.suffix in SUFFIXES and p not in SKIPPED \
                    and not {"results", "vendor", "__pycache__"} & set(p.parts) \
                    and not any(part.endswith(".egg-info") for part in p.parts):
                yield p


def leaks(questions: list[str], root: Path) -> list[tuple[str, str]]:
    """(question, file) for each question found in a scanned file under `root`."""
    wanted = [(q, norm(q)) for q in questions]
    grams = {q: trigrams(n) for q, n in wanted}
    found = []
    for path in scanned_files(root):
        text = path.read_text(encoding="utf-8", errors="ignore")
        whole = norm(text)
        lines = [norm(line) for line in text.splitlines()]
        lines = [(len(n), trigrams(n)) for n in lines if len(n) >= 6]
        for q, n in wanted:
            near = any(size <= 3 * len(n) and len(grams[q] & g) >= NEAR * len(grams[q]) for size, g in lines)
            if n in whole or near:
                found.append((q, str(path.relative_to(root))))
    return found


def test_every_question_is_in_exactly_one_half_with_its_conversation():
    halves = split()
    assert set(halves) == {"dev", "test"}
    dev, test = set(halves["dev"]), set(halves["test"])
    items = {g["id"]: g for g in gold()}
    assert not dev & test
    assert dev | test == set(items)
    for g in items.values():
        if g.get("followup_of"):
            first = g["followup_of"]
            assert (g["id"] in dev) == (first in dev), f"{g['id']} is split from its first turn {first}"
    assert 0.4 <= len(test) / len(items) <= 0.6


def test_no_test_half_question_appears_in_code_prompts_tests_or_docs():
    test_ids = set(split()["test"])
    questions = [g["question"] for g in gold() if g["id"] in test_ids]
    assert len(questions) >= 30
    found = leaks(questions, ROOT)
    assert not found, "test-half questions copied into the repository: " + "; ".join(f"{f}" for _, f in found)


def copies(questions: list[str], root: Path, where: tuple[str, ...] = ("src", "tests")) -> list[tuple[str, str]]:
    """(question, file) for each question written verbatim (case, spaces, punctuation aside) in a file."""
    wanted = [(q, norm(q)) for q in questions]
    found = []
    for path in scanned_files(root, where):
        whole = norm(path.read_text(encoding="utf-8", errors="ignore"))
        found += [(q, str(path.relative_to(root))) for q, n in wanted if n in whole]
    return found


def test_no_gold_question_of_either_half_is_copied_into_code_prompts_or_tests():
    """Dev-half questions may be read to write a rule, but a test or a prompt that holds one verbatim
    passes because it was written on that very question: tests word their own questions."""
    found = copies([g["question"] for g in gold()], ROOT)
    assert not found, "demo gold questions copied: " + "; ".join(f"{q} in {f}" for q, f in found)


@pytest.mark.parametrize("change", ["verbatim", "near"])
def test_the_leak_check_finds_a_copied_question(tmp_path, change):
    """The check can fail: a test-half question planted in a copy of the layout is found."""
    test_ids = set(split()["test"])
    question = next(g["question"] for g in gold() if g["id"] in test_ids and len(norm(g["question"])) >= 12)
    planted = question if change == "verbatim" else question[:-2] + "么呢"
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "rule.py").write_text(f'CASES = ["{planted}"]\n', encoding="utf-8")
    assert leaks([question], tmp_path) == [(question, "src/rule.py")]
    (tmp_path / "src" / "rule.py").write_text('CASES = ["an unrelated question about something else"]\n',
                                              encoding="utf-8")
    assert leaks([question], tmp_path) == []


def biz(name: str = "biz") -> list[dict]:
    return yaml.safe_load((ROOT / "bench" / "data" / f"{name}_questions.yaml").read_text(encoding="utf-8"))


# business sets split into dev and val by conversation -> the fewest validation questions each holds
SPLIT_BIZ = {"biz": 40, "biz4": 25}


@pytest.mark.parametrize("name", sorted(SPLIT_BIZ))
def test_business_questions_split_by_conversation_into_dev_and_val(name):
    items = {g["id"]: g for g in biz(name)}
    assert {g["split"] for g in items.values()} == {"dev", "val"}
    for g in items.values():
        if g.get("followup_of"):
            assert g["split"] == items[g["followup_of"]]["split"], g["id"]
    assert 0.4 <= sum(g["split"] == "val" for g in items.values()) / len(items) <= 0.6


@pytest.mark.parametrize("name", sorted(SPLIT_BIZ))
def test_no_validation_business_question_appears_in_code_prompts_tests_or_docs(name):
    questions = [g["question"] for g in biz(name) if g["split"] == "val"]
    assert len(questions) >= SPLIT_BIZ[name]
    found = leaks(questions, ROOT)
    assert not found, "validation business questions copied: " + "; ".join(f for _, f in found)
    found = copies([g["question"] for g in biz(name)], ROOT)
    assert not found, "business questions copied: " + "; ".join(f"{q} in {f}" for q, f in found)
