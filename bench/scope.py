"""`python -m bench scope`: does the scope check (agent/scope.py, check id `off_topic`) refuse what it
should and only that?

    python -m bench scope --out bench/results/scope.json

- False refusals: every first turn of the question sets (development, validation and test alike: only
  counted, never read) goes through the product's recall and the same judgement as the recall step;
  a refusal there is a question the product would have turned away although its database answers it.
- True refusals: the off-topic questions of `bench/data/off_topic.yaml` (weather, recipes, stock
  prices…, English and Chinese), asked against every database of those sets.

No chat model is involved: the judgement is made before any SQL is written. Results: per set, the
questions and how many were refused (with the share), by language.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import yaml
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bench import datasets
from bench.environment import code_commit

IN_SCOPE = ("spider_dev_200", "spider_dev_zh", "spider_dk", "spider_dk_zh", "spider_dev_test", "demo_dev", "demo_test")
OFF_TOPIC = Path(__file__).resolve().parent / "data" / "off_topic.yaml"


def add_arguments(p) -> None:
    p.add_argument("--sets", default=",".join(IN_SCOPE), help="comma-separated question sets (first turns are judged)")
    p.add_argument("--out", default="bench/results/scope.json")
    p.set_defaults(func=run)


class Judge:
    """The recall step's scope judgement, outside the graph: recall, vocabulary, `scope.judge`."""

    def __init__(self, home: Path):
        from wenshu.agent.service import Agent
        from wenshu.bootstrap import ensure_demo, open_store
        from wenshu.settings import Settings

        self.settings = Settings(home=home, llm_provider="fake")
        self.store = open_store(self.settings)
        self.demo_db = ensure_demo(self.settings, self.store)
        self.agent = Agent(self.settings, self.store)
        self._words: dict[str, tuple] = {}
        self._added = {"demo"}

    def add(self, db_id: str, path: Path) -> None:
        if db_id not in self._added:
            self.store.datasources.add(db_id, f"sqlite:///{path}")
            self._added.add(db_id)

    def refuses(self, db_id: str, question: str) -> bool:
        from wenshu.agent.scope import judge
        from wenshu.agent.vocabulary import Vocabulary
        from wenshu.knowledge.sync import current_catalog

        if db_id not in self._words:
            catalog = current_catalog(self.store, db_id)
            self._words[db_id] = (catalog, Vocabulary.of(catalog, self.agent.semantic_model(db_id)))
        catalog, vocabulary = self._words[db_id]
        got = self.agent.recall.recall(question, catalog)
        return judge(question, got, vocabulary, floor=self.settings.scope_min_similarity, catalog=catalog,
                     semantic=self.agent.semantic_model(db_id)) is not None


def _jobs(judge: Judge, sets: list[str]) -> list[tuple[str, str, str, str]]:
    """(set, db_id, lang, question) to judge: first turns of the sets, then off-topic × every database."""
    jobs, dbs = [], set()
    for name in sets:
        demo = judge.demo_db if name in datasets.DEMO_SETS else None
        _, items = datasets.resolve_set(name, db_dir=None, tables=None, demo_db=demo)
        for i in items:
            if i.followup_of is None and i.db_path is not None:
                judge.add(i.db_id, i.db_path)
                dbs.add(i.db_id)
                jobs.append((name, i.db_id, i.lang, i.question))
    off = yaml.safe_load(OFF_TOPIC.read_text(encoding="utf-8"))["questions"]
    jobs += [("off_topic", db, q["lang"], q["text"]) for db in sorted(dbs) for q in off]
    return jobs


def run(args) -> int:
    console = Console(stderr=True)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])  # (set, lang) -> [questions, refused]
    with tempfile.TemporaryDirectory(prefix="wenshu-scope-") as tmp:
        judge = Judge(Path(tmp))
        jobs = _jobs(judge, sets)
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as bar:
            task = bar.add_task("scope", total=len(jobs))
            for name, db_id, lang, question in jobs:
                refused = judge.refuses(db_id, question)
                for key in ((name, lang), (name, "all")):
                    counts[key][0] += 1
                    counts[key][1] += refused
                bar.update(task, advance=1, description=f"scope: {name}")
        judge.store.close()
    rows = [{"set": s, "lang": lang, "questions": n, "refused": r, "refused_pct": round(100 * r / n, 1)}
            for (s, lang), (n, r) in sorted(counts.items())]
    result = {"command": "python -m bench scope " + " ".join(sys.argv[2:]), "commit": code_commit(), "rows": rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    table = Table("set", "lang", "questions", "refused", "%")
    for r in rows:
        table.add_row(r["set"], r["lang"], str(r["questions"]), str(r["refused"]), f"{r['refused_pct']:.1f}")
    Console().print(table)
    console.print(f"Results: {args.out}")
    return 0
