"""Find, parse and add skills. A skill whose `SKILL.md` cannot be read is listed with its error and
never loaded; nothing in a broken skill reaches the agent."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

import yaml

from wenshu.errors import DuplicateEntry, InputError, NotFound

FILE = "SKILL.md"
NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
_FRONTMATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.S)
MAX_DESCRIPTION = 1024


class InvalidSkill(InputError):
    code = "skill_invalid"

    def __init__(self, where: str, why: str):
        super().__init__(f"The skill at {where} cannot be used: {why}.", f"{where} 的技能无法使用：{why}。")


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path  # the skill's folder
    source: str  # builtin | user | project
    body: str = field(repr=False, default="")
    error: str | None = None  # why it cannot be loaded; set only on broken skills
    tools: tuple[str, ...] = ()  # `allowed-tools`: the tools it works with (offered with it; its first step uses one)

    @property
    def ok(self) -> bool:
        return self.error is None


def parse(folder: Path, source: str) -> Skill:
    """The skill in `folder`; a broken one comes back with `error` set (never raised)."""
    try:
        return _parse(folder, source)
    except InvalidSkill as err:
        return Skill(name=folder.name, description="", path=folder, source=source, error=err.en)


def _parse(folder: Path, source: str) -> Skill:
    where = str(folder)
    try:
        text = (folder / FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InvalidSkill(where, f"{FILE} cannot be read ({type(err).__name__})") from err
    m = _FRONTMATTER.match(text)
    if not m:
        raise InvalidSkill(where, f"{FILE} does not start with a YAML frontmatter block between --- lines")
    try:
        meta = yaml.safe_load(m.group(1))
    except yaml.YAMLError as err:
        raise InvalidSkill(where, f"its frontmatter is not valid YAML ({str(err).splitlines()[0]})") from err
    if not isinstance(meta, dict):
        raise InvalidSkill(where, "its frontmatter is not a mapping")
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not NAME.match(name):
        raise InvalidSkill(where, "`name` must be lower case letters, digits and hyphens (at most 64)")
    if not isinstance(description, str) or not description.strip() or len(description) > MAX_DESCRIPTION:
        raise InvalidSkill(where, f"`description` must be text of 1 to {MAX_DESCRIPTION} characters")
    body = text[m.end():].strip()
    if not body:
        raise InvalidSkill(where, "the body after the frontmatter is empty")
    return Skill(name=name, description=" ".join(description.split()), path=folder, source=source, body=body,
                 tools=_tool_names(meta.get("allowed-tools"), where))


def _tool_names(value, where: str) -> tuple[str, ...]:
    """`allowed-tools` as Claude's SKILL.md writes it: "a, b" or a list of names."""
    if value is None:
        return ()
    names = value.replace(",", " ").split() if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
        raise InvalidSkill(where, "`allowed-tools` must be tool names, as a list or separated by commas")
    return tuple(n.strip() for n in names)


def builtin_dir() -> Path:
    return Path(str(files("wenshu.skills").joinpath("builtin")))


class SkillLibrary:
    """The skills of the sources in order (built-in, user, project): a later one replaces an earlier
    one of the same name; broken skills are kept apart with their errors."""

    def __init__(self, user_dir: Path, project_dir: Path | None = None, builtin: Path | None = None):
        self.user_dir = Path(user_dir)
        self.sources = [("builtin", builtin or builtin_dir()), ("user", self.user_dir)]
        if project_dir is not None:
            self.sources.append(("project", Path(project_dir)))

    def scan(self) -> tuple[dict[str, Skill], list[Skill]]:
        good: dict[str, Skill] = {}
        broken: list[Skill] = []
        for source, base in self.sources:
            for folder in sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []:
                if not (folder / FILE).exists():
                    continue
                skill = parse(folder, source)
                if skill.ok:
                    good[skill.name] = skill
                else:
                    broken.append(skill)
        return good, broken

    def all(self) -> list[Skill]:
        good, broken = self.scan()
        return sorted(good.values(), key=lambda s: s.name) + broken

    def get(self, name: str) -> Skill:
        good, _ = self.scan()
        if name not in good:
            raise NotFound(f"There is no skill named '{name}' (known: {', '.join(sorted(good)) or 'none'}).",
                           f"没有名为「{name}」的技能（已有：{'、'.join(sorted(good)) or '无'}）。")
        return good[name]

    def add(self, folder: Path, *, replace: bool = False) -> Skill:
        """Copy a valid skill folder into the user's skills; a broken one is refused with its error."""
        folder = Path(folder).expanduser().resolve()
        if not (folder / FILE).is_file():
            raise InvalidSkill(str(folder), f"there is no {FILE} in it")
        skill = _parse(folder, "user")
        target = self.user_dir / skill.name
        if target.exists():
            if not replace:
                raise DuplicateEntry(f"A skill named '{skill.name}' is already installed; add --replace to replace it.",
                                     f"已安装名为「{skill.name}」的技能；加 --replace 替换。")
            shutil.rmtree(target)
        self.user_dir.mkdir(parents=True, exist_ok=True)
        shutil.copytree(folder, target, symlinks=False)
        return parse(target, "user")
