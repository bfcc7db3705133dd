"""`wenshu kb ...` as a user runs it (Typer's runner, in process), on real files, the real embedder and,
for `summarize`, the scripted fake model from a file."""

from __future__ import annotations

import json

from fixtures_kb import bad_set
from typer.testing import CliRunner

from wenshu.cli.app import app
from wenshu.settings import reset_settings_cache

runner = CliRunner()


def run(*args):
    return runner.invoke(app, ["kb", *map(str, args)])


def test_add_list_search_show_remove(home, kb_docs, tmp_path):
    bad = bad_set(tmp_path / "bad")
    out = run("add", kb_docs[0].parent, bad["kb_encrypted"], bad["kb_unsupported_format"])
    assert out.exit_code == 1, out.output  # some files failed; the others were added
    assert "password-protected" in out.stdout and "kb_unsupported_format" in out.stdout
    assert out.stdout.count("added") == 4
    listed = json.loads(run("list", "--json").stdout)
    assert sorted(d["name"] for d in listed) == ["campaign.html", "membership.pdf", "metrics.md", "退款政策 (v2).docx"]
    assert {d["status"] for d in listed} == {"summarizing"}
    found = json.loads(run("search", "白金会员怎么升级", "--json").stdout)
    assert found["found"] and found["passages"][0]["document"] == "membership.pdf" and found["passages"][0]["page"] == 2
    text = run("search", "明天会下雨吗")
    assert text.exit_code == 0 and "文档中没有找到相关内容" in text.stdout
    shown = run("show", "membership.pdf")
    assert "3 pages" in shown.stdout and "p. 2" in shown.stdout and "Membership Handbook" in shown.stdout
    again = json.loads(run("add", kb_docs[3], "--json").stdout)
    assert again[0]["status"] == "duplicate" and again[0]["error"] is None
    assert run("remove", "metrics.md").exit_code == 0
    missing = run("show", "metrics.md")
    assert missing.exit_code == 1 and "kb_document_not_found" in missing.output
    assert "Nothing to resume" in run("reindex").stdout


def test_summarize_with_the_configured_model(home, kb_docs, tmp_path, monkeypatch):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["指标手册：GMV与复购率的口径。"]), encoding="utf-8")
    monkeypatch.setenv("WENSHU_LLM_PROVIDER", "fake")
    monkeypatch.setenv("WENSHU_FAKE_SCRIPT", str(script))
    reset_settings_cache()
    out = run("add", kb_docs[3], "--summarize")
    assert out.exit_code == 0, out.output
    (doc,) = json.loads(run("list", "--json").stdout)
    assert doc["status"] == "ready" and doc["summary"] == "指标手册：GMV与复购率的口径。"
