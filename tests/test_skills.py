"""Skills from fixture folders: parsing, precedence, broken frontmatter listed not loaded, `wenshu
skills` through the real CLI, and the host's selection of at most two skills per request."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wenshu.skills.library import InvalidSkill, SkillLibrary, parse
from wenshu.skills.select import select


def make(base: Path, folder: str, text: str) -> Path:
    (base / folder).mkdir(parents=True, exist_ok=True)
    (base / folder / "SKILL.md").write_text(text, encoding="utf-8")
    return base / folder


GOOD = "---\nname: churn-review\ndescription: Review customer churn by month and segment. 客户流失复盘。\n---\n# Churn\nSteps.\n"


@pytest.mark.parametrize(("text", "why"), [
    ("# no frontmatter\n", "frontmatter"),
    ("---\nname: [unclosed\n---\nbody\n", "not valid YAML"),
    ("---\nname: Bad Name\ndescription: x\n---\nbody\n", "`name`"),
    ("---\nname: ok-name\n---\nbody\n", "`description`"),
    ("---\nname: ok-name\ndescription: fine\n---\n\n", "body"),
    ("---\n- a list\n---\nbody\n", "mapping"),
    ("---\nname: ok-name\ndescription: fine\nallowed-tools: [1, 2]\n---\nbody\n", "`allowed-tools`"),
])
def test_a_broken_skill_comes_back_with_its_error(tmp_path, text, why):
    skill = parse(make(tmp_path, "broken", text), "user")
    assert not skill.ok and why in skill.error and skill.body == ""


def test_allowed_tools_are_read_as_claude_writes_them(tmp_path):
    assert parse(make(tmp_path, "a", GOOD), "user").tools == ()
    listed = GOOD.replace("\n---\n#", "\nallowed-tools: [query_database, web_search]\n---\n#")
    assert parse(make(tmp_path, "b", listed), "user").tools == ("query_database", "web_search")
    text = GOOD.replace("\n---\n#", "\nallowed-tools: query_database, read_file\n---\n#")
    assert parse(make(tmp_path, "c", text), "user").tools == ("query_database", "read_file")


def test_sources_later_replace_earlier_and_broken_ones_stay_apart(tmp_path):
    builtin, user, project = tmp_path / "b", tmp_path / "u", tmp_path / "p"
    make(builtin, "churn-review", GOOD)
    make(project, "churn-review", GOOD.replace("Steps.", "Project steps."))
    make(user, "oops", "no frontmatter")
    good, broken = SkillLibrary(user, project, builtin=builtin).scan()
    assert good["churn-review"].source == "project" and good["churn-review"].body.endswith("Project steps.")
    assert [b.name for b in broken] == ["oops"]


def test_add_checks_then_copies_and_refuses_a_duplicate(tmp_path):
    lib = SkillLibrary(tmp_path / "home_skills", builtin=tmp_path / "none")
    added = lib.add(make(tmp_path / "src", "anything", GOOD))
    assert added.name == "churn-review" and (tmp_path / "home_skills" / "churn-review" / "SKILL.md").exists()
    with pytest.raises(Exception) as dup:
        lib.add(make(tmp_path / "src", "anything", GOOD))
    assert getattr(dup.value, "code", "") == "duplicate"
    assert lib.add(make(tmp_path / "src", "anything", GOOD), replace=True).ok
    with pytest.raises(InvalidSkill):
        lib.add(make(tmp_path / "src", "bad", "no frontmatter"))


def test_the_built_in_skills_load():
    good, broken = SkillLibrary(Path("/nonexistent")).scan()
    assert {"weekly-report", "data-quality-check"} <= set(good) and not broken


def test_the_host_selects_at_most_two_fitting_skills():
    good, _ = SkillLibrary(Path("/nonexistent")).scan()
    skills = list(good.values())
    assert [s.name for s in select("Make me last week's weekly report", skills)] == ["weekly-report"]
    assert [s.name for s in select("检查一下 orders 表的数据质量", skills)] == ["data-quality-check"]
    assert select("what's the weather like", skills) == []
    assert len(select("weekly report and data quality check", skills, k=2)) == 2


def test_the_cli_lists_shows_and_adds(tmp_path):
    env = {**os.environ, "WENSHU_HOME": str(tmp_path / "home")}
    make(tmp_path / "proj" / "skills", "broken-one", "no frontmatter")

    def cli(*args):
        wenshu = Path(sys.executable).parent / "wenshu"  # the installed command, as a user runs it
        return subprocess.run([str(wenshu), "skills", *args], cwd=tmp_path / "proj", env=env, capture_output=True,
                              text=True, timeout=120)  # fmt: skip

    listed = json.loads(cli("list", "--json").stdout)
    by = {s["name"]: s for s in listed}
    assert by["weekly-report"]["source"] == "builtin" and by["broken-one"]["error"]
    shown = cli("show", "data-quality-check")
    assert shown.returncode == 0 and "foreign key" in shown.stdout
    missing = cli("show", "nope")
    assert missing.returncode == 1 and "not_found" in missing.stderr
    added = cli("add", str(make(tmp_path, "mine", GOOD)))
    assert added.returncode == 0 and "churn-review" in added.stdout
    assert "churn-review" in {s["name"] for s in json.loads(cli("list", "--json").stdout)}
