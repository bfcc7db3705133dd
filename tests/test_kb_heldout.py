"""The knowledge base's held-out and validation questions (bench/data/kb/heldout.yaml and val.yaml: each written
from the benchmark's documents alone by a helper who saw no other question set and no search code; `python -m
bench kb --questions heldout` only reports them, `val` decides ablations) stay out of the repository: none
may appear verbatim (case, spaces and punctuation aside) in the product's code, prompts, tests, bench code or
docs."""

from __future__ import annotations

from pathlib import Path

import yaml

from test_demo_split import SCANNED, norm, scanned_files
from test_heldout_sets import min_chars

ROOT = Path(__file__).resolve().parents[1]
HELDOUT = Path("bench/data/kb/heldout.yaml")
SETS = (HELDOUT, Path("bench/data/kb/val.yaml"), Path("bench/data/kb/val2.yaml"))  # held out, and validation: neither is read to write rules


def held_out() -> list[str]:
    questions = [q for path in SETS for q in yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))["questions"]]
    return [q["q"] for q in questions if len(norm(q["q"])) >= min_chars(q["q"])]


def copied(questions: list[str], root: Path) -> list[tuple[str, str]]:
    wanted = {norm(q): q for q in questions}
    out = []
    for path in scanned_files(root, SCANNED):
        if any(path == root / own for own in SETS):
            continue
        whole = norm(path.read_text(encoding="utf-8", errors="ignore"))
        out += [(q, str(path.relative_to(root))) for n, q in wanted.items() if n in whole]
    return out


def test_no_held_out_kb_question_is_in_the_repository():
    questions = held_out()
    assert len(questions) >= 30
    found = copied(questions, ROOT)
    assert not found, "held-out knowledge-base questions copied: " + "; ".join(f"{q!r} in {f}" for q, f in found)


def test_the_check_finds_a_planted_question(tmp_path):
    question = held_out()[0]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.md").write_text(f"Asked: {question.upper()}?\n", encoding="utf-8")
    (tmp_path / HELDOUT).parent.mkdir(parents=True)
    (tmp_path / HELDOUT).write_text(question, encoding="utf-8")  # the set's own file is not a copy
    assert copied([question], tmp_path) == [(question, "docs/notes.md")]


def test_no_question_is_in_two_of_the_sets():
    """Two blind writers can word a question alike: the held-out set keeps it, a validation set may not."""
    seen: dict[str, Path] = {}
    for path in SETS:
        for q in yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))["questions"]:
            key = norm(q["q"])
            assert key not in seen or seen[key] == path, f"{q['q']!r} is in {seen.get(key)} and {path}"
            seen.setdefault(key, path)
