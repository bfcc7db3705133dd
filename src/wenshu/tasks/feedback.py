"""Results as signals, not dumps: what the model reads after each step.

- A file up to a screen long is shown whole; a longer one becomes its line count plus the relevant part:
  its first lines (imports) and the lines around the words of the goal and of the latest failure.
- Test output becomes pass/fail with the counts, plus each failing test with its failing assertion
  (pytest's `E` lines) and where it failed; output that is not pytest's keeps only its last lines.
- Any other command: its exit status and the head of its output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wenshu.workspace.commands import CommandResult

SCREEN = 80  # lines
HEAD = 12  # first lines of a long file, always shown
CONTEXT = 4  # lines around a relevant line
MAX_FAILURES = 5
MAX_SIGNAL = 1800  # characters of a test signal
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_COMMON = {"the", "and", "for", "with", "that", "this", "make", "test", "tests", "pass", "failing", "def", "return",
           "import", "from", "assert", "self", "none", "true", "false", "file", "should"}
_COUNTS = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")
_SUMMARY_LINE = re.compile(r"^(FAILED|ERROR) ([^\s(]\S*)(?: - (.*))?$")
_BLOCK = re.compile(r"^_{3,} (.+?) _{3,}$")
_WHERE = re.compile(r"^(\S+\.py):(\d+): (.+)$")
_UNITTEST_HEAD = re.compile(r"^(FAIL|ERROR): (\S+) \((\S+?)\)$")  # unittest: FAIL: test_add (mod.Class.test_add)
_UNITTEST_WHERE = re.compile(r'^\s*File "(.+?)", line (\d+)')
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests?")
_UNITTEST_END = re.compile(r"^FAILED \((.+)\)$")


@dataclass(frozen=True)
class Signal:
    outcome: str  # passed | failed | no_tests | timeout | broken
    summary: str
    failure: str | None = None  # the failures' identity (ids and first assertion), for the stuck detector


def focus_words(*texts: str) -> set[str]:
    return {w.lower() for t in texts for w in _WORD.findall(t or "")} - _COMMON


def file_view(content: str, focus: set[str]) -> tuple[str, bool]:
    """(what to show, shown in part?) of a file's text."""
    lines = content.splitlines()
    if len(lines) <= SCREEN:
        return content, False
    keep = set(range(HEAD))
    for i, line in enumerate(lines):
        if focus & {w.lower() for w in _WORD.findall(line)}:
            keep.update(range(max(0, i - CONTEXT), min(len(lines), i + CONTEXT + 1)))
        if len(keep) >= SCREEN:
            break
    if len(keep) <= HEAD:
        keep = set(range(SCREEN))
    out, last = [], -1
    for i in sorted(keep)[:SCREEN]:
        if i != last + 1:
            out.append(f"… (lines {last + 2}-{i} not shown)")
        out.append(lines[i])
        last = i
    if last < len(lines) - 1:
        out.append(f"… (lines {last + 2}-{len(lines)} not shown)")
    return "\n".join(out), True


def is_test_command(argv: list[str]) -> bool:
    return any(a in ("pytest", "unittest") or a.endswith("/pytest") for a in argv[:4])


def signal_of_tests(r: CommandResult, command: str, root: str | None = None) -> Signal:
    """`root`: the folder the tests ran in, left out of paths (a clean copy's name changes every run)."""
    out = f"{r.stdout}\n{r.stderr}".strip()
    if root:
        out = out.replace(root.rstrip("/") + "/", "")
    if r.timed_out:
        tail = "\n".join(out.splitlines()[-5:])
        return Signal("timeout", f"tests timed out after {r.seconds} s (stopped)\n{tail}".strip(), "timeout")
    module = command.split(" -m ", 1)[1].split()[0] if " -m " in command else None
    if r.returncode == 127 or (module and f"No module named {module}" in out):
        first = next((ln for ln in out.splitlines() if ln.strip()), f"exit {r.returncode}")
        return Signal("broken", first[:300], "broken")
    lines = out.splitlines()
    counts = _counts(lines)
    if r.returncode == 5 or (r.returncode == 0 and re.search(r"\bRan 0 tests\b|no tests ran", out)):
        return Signal("no_tests", "no tests found")
    if r.returncode == 0:
        return Signal("passed", f"tests passed: {counts or 'ok'}")
    if r.returncode in (3, 4):  # pytest: internal or usage error
        return Signal("broken", "\n".join(lines[-5:])[:600], "broken")
    failures = _failures(lines)
    if not failures:
        tail = "\n".join(lines[-15:])
        return Signal("failed", f"tests failed (exit {r.returncode}): {counts}\n{tail}".strip()[:MAX_SIGNAL],
                      "|".join(lines[-3:]))
    body = "\n".join(f"- {name}: {detail}" + (f" (at {where})" if where else "")
                     for name, detail, where in failures[:MAX_FAILURES])
    more = f"\n(and {len(failures) - MAX_FAILURES} more)" if len(failures) > MAX_FAILURES else ""
    text = f"tests failed: {counts or f'exit {r.returncode}'}\n{body}{more}"
    return Signal("failed", text[:MAX_SIGNAL], "|".join(sorted(f"{n}: {d}" for n, d, _ in failures)))


def _counts(lines: list[str]) -> str:
    for line in reversed(lines):
        found = _COUNTS.findall(line)
        if found:
            return ", ".join(f"{n} {what}" for n, what in found)
    ran = next((m.group(1) for m in map(_UNITTEST_RAN.match, lines) if m), None)
    end = next((m.group(1) for m in map(_UNITTEST_END.match, lines) if m), None)
    return f"{ran} tests" + (f", {end}" if end else "") if ran else ""


def _failures(lines: list[str]) -> list[tuple[str, str, str]]:
    """[(test id, its first assertion lines, where it failed)] from pytest's blocks and short summary."""
    blocks: dict[str, dict] = {}
    current = None
    for line in lines:
        head = _BLOCK.match(line)
        if head:
            current = blocks.setdefault(head.group(1), {"e": [], "where": []})
        elif line.startswith("="):
            current = None
        elif current is not None:
            if line.startswith("E ") and len(current["e"]) < 4:
                current["e"].append(line[1:].strip())
            where = _WHERE.match(line)
            if where:
                current["where"].append(f"{where.group(1)}:{where.group(2)}")
    summary = [m for m in (_SUMMARY_LINE.match(ln) for ln in lines) if m]
    out = []
    for title, b in blocks.items():
        name = title.removeprefix("ERROR collecting ")
        name = next((m.group(2) for m in summary if m.group(2) == name or m.group(2).endswith("::" + name)), name)
        detail = " | ".join(b["e"]) or next((m.group(3) or "" for m in summary if m.group(2) == name), "")
        out.append((name, detail[:400], b["where"][-1] if b["where"] else ""))
    return out or [(m.group(2), (m.group(3) or "")[:400], "") for m in summary] or _unittest_failures(lines)


def _unittest_failures(lines: list[str]) -> list[tuple[str, str, str]]:
    """unittest's blocks: FAIL/ERROR: name (id), a traceback, and its last line (the exception)."""
    out = []
    for i, line in enumerate(lines):
        head = _UNITTEST_HEAD.match(line)
        if not head:
            continue
        block = []
        for nxt in lines[i + 2:]:  # past the ----- line under the head
            if nxt.startswith(("=====", "-----")):
                break
            block.append(nxt)
        where = [m for m in map(_UNITTEST_WHERE.match, block) if m]
        detail = next((b.strip() for b in reversed(block) if b.strip()), "")
        out.append((head.group(3), detail[:400], f"{where[-1].group(1)}:{where[-1].group(2)}" if where else ""))
    return out


def command_signal(r: CommandResult) -> Signal:
    state = "timed out" if r.timed_out else f"exit {r.returncode}"
    lines = f"{r.stdout}\n{r.stderr}".strip().splitlines()
    head = "\n".join(lines[:40]) + (f"\n… ({len(lines) - 40} more lines)" if len(lines) > 40 else "")
    ok = r.returncode == 0 and not r.timed_out
    return Signal("passed" if ok else "failed", f"{state} in {r.seconds} s\n{head}".strip(),
                  None if ok else f"{state}|{'|'.join(lines[-2:])}")
