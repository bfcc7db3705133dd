"""What every bench run works under: the code's commit, and the settings of a temporary home for the model and
checks a run asks for (`--model embedded|endpoint|fake`, `--ablate`, `--candidates`, `--semantic`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from bench.scoring import MAX_ROWS


def bench_settings(args, home: Path):
    from wenshu.settings import Settings

    model_path = Settings().resolved_model_path  # the user's installed model, before the temp home takes over
    os.environ["WENSHU_HOME"] = str(home)
    common = {"home": home, "row_limit": MAX_ROWS, "sql_candidates": args.candidates,
              "semantic_path": bool(getattr(args, "semantic", False)), "disabled_checks": ablated(args),
              "schema_layout": getattr(args, "layout", "compact")}
    if args.model == "embedded":
        return Settings(**common, llm_provider="embedded", model_path=model_path), "embedded"
    if args.model == "endpoint":
        if not (args.base_url and args.model_name):
            raise SystemExit("--model endpoint needs --base-url and --model-name (or WENSHU_LLM_BASE_URL/WENSHU_LLM_MODEL).")
        return Settings(**common, llm_provider="openai", llm_base_url=args.base_url, llm_model=args.model_name,
                        llm_api_key=args.api_key or "none"), f"endpoint:{args.model_name}"  # fmt: skip
    return Settings(**common, llm_provider="fake"), "fake"


def _check_ids(text: str) -> list[str]:
    from wenshu.agent.checks import require_known
    from wenshu.errors import WenshuError

    names = [n.strip() for n in (text or "").split(",") if n.strip()]
    try:
        require_known(names)
    except WenshuError as err:
        raise SystemExit(err.en) from err
    return names


def ablated(args) -> list[str]:
    """The checks switched off: those off by default (unless `--all-checks`, or named by `--with`), and `--ablate`."""
    names = _check_ids(getattr(args, "ablate", ""))
    if getattr(args, "only_fired", None) and not names:
        raise SystemExit("--only-fired needs --ablate (the checks whose effect to measure).")
    from wenshu.settings import OFF_BY_DEFAULT

    wanted = _check_ids(getattr(args, "with_checks", ""))
    base = [] if getattr(args, "all_checks", False) else [c for c in OFF_BY_DEFAULT if c not in wanted]
    return list(dict.fromkeys([*base, *names]))


def code_commit() -> str | None:
    """The code's commit (with "+dirty" for uncommitted changes), so a number can be traced."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src", "bench"], capture_output=True, text=True,
                               timeout=10)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0:
        return None
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
