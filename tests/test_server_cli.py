"""`wenshu token ...` and `wenshu serve` (a real subprocess with the scripted fake model)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
from typer.testing import CliRunner

from fixtures_server import CITY_QUESTION, CITY_TOP
from wenshu.cli.app import app

runner = CliRunner()
WENSHU = str(Path(sys.executable).parent / "wenshu")


def test_token_create_list_revoke_grant(home, settings):
    from wenshu.bootstrap import open_store

    made = runner.invoke(app, ["token", "create", "--user", "erin", "--datasource", "demo"])
    assert made.exit_code == 0, made.output
    token = made.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"wsk_[A-Za-z0-9_-]{40,}", token)
    assert token.encode() not in (home / "wenshu.db").read_bytes()  # only the hash is stored
    with open_store(settings) as store:
        assert store.users.lookup(token).user_id == "erin" and store.users.grants("erin") == {"demo"}
    listed = json.loads(runner.invoke(app, ["token", "list", "--json"]).stdout)
    assert [(t["user"], t["active"], t["grants"]) for t in listed] == [("erin", True, ["demo"])]
    assert token.startswith(listed[0]["prefix"]) and len(listed[0]["prefix"]) < 16
    assert runner.invoke(app, ["token", "grant", "--user", "erin", "*"]).exit_code == 0
    assert runner.invoke(app, ["token", "revoke", str(listed[0]["id"])]).exit_code == 0
    with open_store(settings) as store:
        assert store.users.lookup(token) is None and store.users.grants("erin") == {"demo", "*"}
    again = runner.invoke(app, ["token", "revoke", str(listed[0]["id"])])
    assert again.exit_code == 1 and "token_not_found" in again.output


def _env(home, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WENSHU_")}
    return env | {"WENSHU_HOME": str(home), "WENSHU_LLM_PROVIDER": "fake"} | extra


def _serve(home, *args, **env):
    return subprocess.run([WENSHU, "serve", *args], env=_env(home, **env),
                          capture_output=True, text=True, timeout=120)


def test_serve_refuses_a_public_address_without_tokens(home):
    en = _serve(home, "--host", "0.0.0.0", "--port", "1", LANG="en_US.UTF-8")
    assert en.returncode == 2 and "Refusing to listen on a non-loopback address" in en.stderr
    assert "wenshu token create" in en.stderr and "auth_not_configured" in en.stderr
    zh = _serve(home, "--host", "0.0.0.0", "--port", "1", WENSHU_LANG="zh_CN.UTF-8")
    assert zh.returncode == 2 and "拒绝在非本机地址上无认证监听" in zh.stderr


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_runs_on_the_demo_database_with_the_fake_model(home, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"default": CITY_TOP}), encoding="utf-8")
    port = _free_port()
    proc = subprocess.Popen([WENSHU, "serve", "--port", str(port)],
                            env=_env(home, WENSHU_FAKE_SCRIPT=str(script)), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # printed once the port is listening
        assert f"http://127.0.0.1:{port}/" in line, line + proc.stderr.read()
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
            body = http.post("/api/ask", json={"message": CITY_QUESTION}).json()
            assert body["row_count"] == 10 and body["columns"] == ["城市", "订单量"]
            assert http.get("/api/meta").json()["user"] == "local"
    finally:
        proc.terminate()
        try:
            code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert code in (0, -15)  # a clean shutdown on SIGTERM
