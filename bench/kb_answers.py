"""`python -m bench kb --answers`: answers grounded in a cited passage (issue 16's answer goal).

    nice -n 5 python -m bench kb --answers --model embedded --every 2 --out bench/results/kb_answers_COMMIT.json
    python -m bench kb --answers --rescore bench/results/kb_answers_COMMIT.json   # grade stored answers again

The benchmark corpus (bench/kb_corpus.py) is ingested into a fresh home that also has the demo database,
as a user's would. Each question of bench/data/kb/questions.yaml is asked of the general assistant
(`Assistant.ask`, the path of `wenshu assist` and the HTTP assistant route: rules route, the model's
steps under a JSON schema, the host's citations), one new conversation a question. Each answer is graded
by bench/kb_grade.py. `--every N` asks every Nth answerable and every Nth unanswerable question (a fixed
subset, in file order, for a slow CPU); `--skip` leaves out the first questions of it and `--limit` stops
after that many (a run split in two; `--rescore A.json,B.json` joins them).

Reported: grounded %, cited-but-not-stated, stated-but-not-cited, neither; the unanswerable questions
answered "not in the documents"; which tool answered; median and p90 seconds a question.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml

from bench.kb_grade import grade


def pick(questions: list[dict], every: int = 1, limit: int | None = None, skip: int = 0) -> list[dict]:
    answerable = [q for q in questions if q.get("doc")][::every]
    negatives = [q for q in questions if not q.get("doc")][::every]
    return (answerable + negatives)[skip:][:limit]


_SHOWN = re.compile(r"^\[(\d+)\] (.+?)(?: · .*)?$", re.M)


def shown_rank(item: dict, results: list[str]) -> int | None:
    """Where the passage that answers the question stood among those the documents tool showed the model (1-based,
    over the turn's searches in order), None when it was not shown or the question has none: a miss with the
    passage shown is the reading's, one without it the search's."""
    if not item.get("doc"):
        return None
    want, rank = re.sub(r"\s+", "", item["answer"]).lower(), 0
    for result in results:
        heads = list(_SHOWN.finditer(result))
        for head, after in zip(heads, [*heads[1:], None]):
            rank += 1
            text = result[head.end(): after.start() if after else len(result)]
            if Path(head[2]).stem == item["doc"] and want in re.sub(r"\s+", "", text).lower():
                return rank
    return None


def ask_all(assistant, items: list[dict], echo=print, keep=None, shown: bool = True) -> list[dict]:
    """Ask each item of the assistant; one stored record a question (answer, route, tools, citations, seconds),
    each also handed to `keep` as soon as it is graded (a run stopped early keeps what it did)."""
    from wenshu.errors import WenshuError

    records = []
    for item in items:
        t0 = time.perf_counter()
        try:
            resp = assistant.ask(item["q"])
            record = {"answer": resp.answer, "route": resp.route, "status": resp.status,
                      "error": resp.error.code if resp.error else None,
                      "actions": [s.action for s in resp.steps], "queries": [s.arguments for s in resp.steps],
                      "shown": shown_rank(item, [s.result for s in resp.steps if s.action == "search_documents"]),
                      "citations": [c.model_dump(include={"document", "section", "page", "passage"})
                                    for c in resp.citations]}  # fmt: skip
        except WenshuError as err:  # a model failure is this question's result, not the run's end
            record = {"answer": "", "route": "", "status": "error", "actions": [], "citations": [], "error": err.code}
        record = {"q": item["q"], "doc": item.get("doc"), **record, "seconds": round(time.perf_counter() - t0, 2)}
        record.update(grade(item, record))
        records.append(record)
        echo(_line(record, shown))
        if keep is not None:
            keep(record)
    return records


def _line(r: dict, shown: bool = True) -> str:
    """One graded answer as the run prints it; `shown`: with its question and answer (not for a held-out set,
    whose wrong answers nobody may read while writing rules: the result file keeps them)."""
    if r["doc"] is None:
        mark = "✓ refused" if r["refused"] else "✗ answered"
    else:
        mark = "✓ grounded" if r["grounded"] else f"✗ cited={r['cited']} stated={r['stated']}"
    said = f"  {r['q']}  →  {r['answer'][:120]!r}" if shown else ""
    return f"{mark:28} {r['tool']:18} {r['seconds']:6.1f}s{said}"


def summarize(records: list[dict]) -> dict:
    def pct(n: int, d: int):
        return round(100 * n / d, 1) if d else None

    ans = [r for r in records if r["doc"] is not None]
    neg = [r for r in records if r["doc"] is None]
    ran = [r for r in ans if r.get("status") != "error"]
    shown = [r for r in ans if r.get("shown")]  # a model error (timeout on a loaded CPU) is not an answer
    seconds = sorted(r["seconds"] for r in records)
    return {
        "questions": len(ans), "grounded_pct": pct(sum(r["grounded"] for r in ans), len(ans)),
        "cited_not_stated": sum(r["cited"] and not r["stated"] for r in ans),
        "stated_not_cited": sum(r["stated"] and not r["cited"] for r in ans),
        "neither": sum(not r["cited"] and not r["stated"] for r in ans),
        "model_errors": len(ans) - len(ran), "grounded_pct_without_errors": pct(sum(r["grounded"] for r in ran), len(ran)),
        "documents_tool_pct": pct(sum(r["documents_tool"] for r in ans), len(ans)),
        "passage_shown_pct": pct(len(shown), len(ans)),  # the answering passage among those the model read
        "grounded_when_shown_pct": pct(sum(r["grounded"] for r in shown), len(shown)),
        "tools": dict(Counter(r["tool"] for r in records)),
        "unanswerable": len(neg), "unanswerable_refused_pct": pct(sum(r["refused"] for r in neg), len(neg)),
        "median_s": round(statistics.median(seconds), 1) if seconds else None,
        "p90_s": round(seconds[min(len(seconds) - 1, int(0.9 * len(seconds)))], 1) if seconds else None,
    }


def report(summary: dict) -> None:
    s = summary
    print(f"answers ({s['questions']} questions): grounded {s['grounded_pct']}%  cited-not-stated "
          f"{s['cited_not_stated']}  stated-not-cited {s['stated_not_cited']}  neither {s['neither']}  "
          f"documents tool {s['documents_tool_pct']}%; model errors {s['model_errors']} (grounded without them "
          f"{s['grounded_pct_without_errors']}%); answering passage shown {s.get('passage_shown_pct')}%, grounded "
          f"then {s.get('grounded_when_shown_pct')}%")
    print(f"unanswerable ({s['unanswerable']}): 'not in the documents' {s['unanswerable_refused_pct']}%; "
          f"tools {s['tools']}; median {s['median_s']} s, p90 {s['p90_s']} s")


def rescore(path: Path, questions: list[dict], more: list[Path] = ()) -> int:
    """Grade the stored answers of an earlier run again (after a change of the grading rule); `more`: runs of
    the same commit over the rest of the subset (`--skip`), whose records join the first file's."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for extra in more:
        added = json.loads(extra.read_text(encoding="utf-8"))
        if added["commit"] != data["commit"]:
            raise SystemExit(f"{extra} is of commit {added['commit']}, {path} of {data['commit']}")
        data["records"] += added["records"]
        data.setdefault("joined", []).append(extra.name)
    by_q = {q["q"]: q for q in questions}
    for r in data["records"]:
        r.update(grade(by_q[r["q"]], r))
    data["summary"] = {**data["summary"], **summarize(data["records"])}
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    report(data["summary"])
    return 0


def run(args, questions_file: Path) -> int:
    questions = yaml.safe_load(questions_file.read_text(encoding="utf-8"))["questions"]
    if args.rescore:
        first, *more = [Path(p) for p in args.rescore.split(",")]
        return rescore(first, questions, more)
    from bench.kb_corpus import render_corpus
    from bench.environment import bench_settings, code_commit
    from bench.kb import NOT_READ
    from wenshu.assistant.service import Assistant
    from wenshu.bootstrap import ensure_demo, open_store

    commit, items = code_commit(), pick(questions, args.every, args.limit, args.skip)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_suffix(".partial.jsonl")  # removed once the run is written whole
    partial.write_text("", encoding="utf-8")

    def keep(record: dict) -> None:
        with partial.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")

    with tempfile.TemporaryDirectory(prefix="wenshu-bench-kb-answers-") as tmp:
        args.candidates, args.semantic, args.ablate = 1, True, ""
        settings, label = bench_settings(args, Path(tmp) / "home")
        settings = settings.model_copy(update={"kb_summaries": False})
        store = open_store(settings)
        ensure_demo(settings, store)
        with Assistant(settings, store) as assistant:
            added = assistant.kb.add(render_corpus(Path(tmp) / "corpus"))
            failed = [r.to_dict() for r in added if r.error]
            records = ask_all(assistant, items, echo=lambda line: print(line, flush=True), keep=keep,
                              shown=questions_file.stem not in NOT_READ)
        store.close()
    summary = {"model": label, "questions_file": questions_file.name, "every": args.every, "skip": args.skip, "limit": args.limit, **summarize(records)}
    out.write_text(json.dumps({"commit": commit, "summary": summary, "failed_files": failed, "records": records},
                              indent=1, ensure_ascii=False) + "\n", encoding="utf-8")  # fmt: skip
    partial.unlink()
    report(summary)
    return 0
