"""`wenshu examples ...` round trips through the real CLI (Typer's runner) and app store in a temp home."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from wenshu.cli.app import app

runner = CliRunner()
SQL = "SELECT region_name FROM regions ORDER BY region_id"


def run(*args):
    return runner.invoke(app, list(args))


def listed(*args) -> list[dict]:
    out = run("examples", "list", "--json", *args)
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_add_list_remove_and_duplicates(home):
    bundled = listed("--db", "demo")
    assert len(bundled) >= 30 and {e["source"] for e in bundled} == {"bundled"}
    out = run("examples", "add", "--db", "demo", "--question", "List every region", "--sql", SQL, "--type", "detail")
    assert out.exit_code == 0, out.output
    new = [e for e in listed("--db", "demo") if e["question"] == "List every region"]
    assert len(new) == 1 and new[0]["status"] == "active" and new[0]["query_type"] == "detail"
    again = run("examples", "add", "--question", "list every region?", "--sql", "SELECT 1")
    assert again.exit_code == 1 and "duplicate" in again.output
    bad = run("examples", "add", "--question", "Wipe", "--sql", "DELETE FROM regions")
    assert bad.exit_code == 1 and "invalid_example_sql" in bad.output
    unknown = run("examples", "add", "--db", "nope", "--question", "Q", "--sql", SQL)
    assert unknown.exit_code == 1 and "unknown_datasource" in unknown.output
    assert run("examples", "remove", str(new[0]["id"])).exit_code == 0
    assert len(listed("--db", "demo")) == len(bundled)
    gone = run("examples", "remove", str(new[0]["id"]))
    assert gone.exit_code == 1 and "example_not_found" in gone.output


def test_export_import_round_trip(home, tmp_path):
    path = tmp_path / "lib.yaml"
    assert run("examples", "export", str(path)).exit_code == 0
    text = path.read_text(encoding="utf-8")
    assert text.startswith("examples:") and "sql: |" in text
    stdout = run("examples", "export", "--db", "demo")
    assert stdout.exit_code == 0 and stdout.stdout == text
    assert run("db", "add", "copy", str(home / "data" / "demo.sqlite")).exit_code == 0
    out = run("examples", "import", str(path), "--db", "copy")
    assert out.exit_code == 0, out.output
    copied = listed("--db", "copy")
    assert [e["question"] for e in copied] == [e["question"] for e in listed("--db", "demo")]
    assert {e["source"] for e in copied} == {"user"}
    again = run("examples", "import", str(path), "--db", "copy")
    assert "Imported 0" in again.output and len(listed("--db", "copy")) == len(copied)
    broken = tmp_path / "broken.yaml"
    broken.write_text("examples: [{question: only a question}]\n", encoding="utf-8")
    bad = run("examples", "import", str(broken), "--db", "copy")
    assert bad.exit_code == 1 and "bad_examples_file" in bad.output


def test_approve_and_reject_move_status(home, store):
    from wenshu.knowledge.examples import LibraryExamples

    pending = LibraryExamples(store.examples).add(
        "demo", "Regions in order", SQL, status="pending", source="learned", conversation_id="c9")
    assert [e["id"] for e in listed("--status", "pending")] == [pending.id]
    assert run("examples", "approve", str(pending.id)).exit_code == 0
    assert pending.id in [e["id"] for e in listed("--status", "active")]
    assert run("examples", "reject", str(pending.id)).exit_code == 0
    rejected = listed("--status", "rejected")
    assert [e["id"] for e in rejected] == [pending.id] and rejected[0]["approved_at"] is None
    exported = run("examples", "export", "--status", "rejected")
    assert "Regions in order" in exported.stdout
    assert run("examples", "approve", "99999").exit_code == 1
    bad = run("examples", "list", "--status", "maybe")
    assert bad.exit_code == 1 and "bad_status" in bad.output
