"""Skills: folders with a `SKILL.md` (YAML frontmatter `name`, `description`; a Markdown body the
agent reads when the host selects the skill), found in the built-in set, under WENSHU_HOME/skills
and in the project's `skills/` folder, a later source replacing an earlier one of the same name."""
