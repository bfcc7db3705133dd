"""Shared CLI plumbing: one console, error reporting in the user's language, progress bars."""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

from wenshu.errors import WenshuError
from wenshu.settings import Settings, get_settings

console = Console()
err_console = Console(stderr=True)
STATE = {"debug": False}


def ui_lang(text: str | None = None) -> str:
    from wenshu.i18n import detect_lang

    if text:
        return detect_lang(text)
    return "zh" if os.environ.get("WENSHU_LANG", os.environ.get("LANG", "")).startswith("zh") else "en"


def report(err: BaseException, lang: str = "en", as_json: bool = False) -> None:
    """Print one clear sentence (or the JSON error shape); --debug adds the traceback."""
    if STATE["debug"]:
        traceback.print_exception(err)
    if not isinstance(err, WenshuError):
        err = WenshuError(f"Unexpected error: {type(err).__name__}: {err}", f"意外错误：{type(err).__name__}: {err}")
    if as_json:
        print(json.dumps({"error": err.to_dict(lang)}, ensure_ascii=False))
    else:
        err_console.print(f"[bold red]{escape(err.message(lang))}[/] [dim]({err.code})[/]", highlight=False,
                          soft_wrap=True)  # escaped: a message may name `pip install 'wenshu[desktop]'`


def fail(err: BaseException, lang: str = "en", as_json: bool = False) -> None:
    report(err, lang, as_json)
    raise SystemExit(1)


@contextmanager
def guarded(lang: str = "en", as_json: bool = False) -> Iterator[None]:
    try:
        yield
    except (SystemExit, KeyboardInterrupt):
        raise
    except Exception as exc:  # every failure becomes one sentence + code
        fail(exc, lang, as_json)


def settings() -> Settings:
    return get_settings()


@contextmanager
def progress_bar(bytes_mode: bool = False) -> Iterator[Callable[[str, int, int], None]]:
    """Yields a `progress(stage, done, total)` callback drawn as one bar per stage (on stderr)."""
    columns = [TextColumn("{task.description}"), BarColumn()]
    columns += [DownloadColumn()] if bytes_mode else [TextColumn("{task.completed}/{task.total}")]
    columns.append(TimeRemainingColumn())
    tasks: dict[str, int] = {}
    with Progress(*columns, console=err_console) as bar:

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield update
