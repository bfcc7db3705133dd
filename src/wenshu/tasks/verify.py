"""Verify: the tests run in a clean copy — the user's folder as it is, plus the files the agent wrote —
in a temporary folder, with the configured test command, a time limit and no network: a network namespace
of its own where the machine allows one (workspace/isolation.py), else proxies that lead nowhere and no
package index, which stop only well-behaved clients. Test files therefore always come from the user's
folder: a test the agent changed in its scratch copy (by a command, say) never reaches verify.

What is enforced and what is not: docs/tasks.md ("Verify")."""

from __future__ import annotations

import tempfile
from pathlib import Path

from wenshu.tasks.config import TaskConfig
from wenshu.tasks.feedback import Signal, signal_of_tests
from wenshu.workspace.commands import run_command
from wenshu.workspace.copy import copy_tree
from wenshu.workspace.files import read_text, write_text
from wenshu.workspace.isolation import no_network_prefix
from wenshu.workspace.paths import Root

NOWHERE = "http://127.0.0.1:9"  # the discard port: connections are refused at once
NO_NETWORK = {"http_proxy": NOWHERE, "https_proxy": NOWHERE, "HTTP_PROXY": NOWHERE, "HTTPS_PROXY": NOWHERE,
              "ALL_PROXY": NOWHERE, "all_proxy": NOWHERE, "NO_PROXY": "", "no_proxy": "", "PIP_NO_INDEX": "1",
              "PIP_DISABLE_PIP_VERSION_CHECK": "1"}  # fmt: skip


def verify(original: Root, work: Root, written: list[str], config: TaskConfig) -> Signal:
    with tempfile.TemporaryDirectory(prefix="wenshu-verify-") as tmp:
        folder = Path(tmp) / "project"
        copy_tree(original.path, folder, max_mb=config.max_copy_mb)
        clean = Root(folder)
        for rel in written:
            write_text(clean, rel, read_text(work, rel).content)
        command = config.test_command
        r = run_command(clean, command, allowlist=[command], timeout_s=config.test_timeout_s, path=config.path,
                        env=NO_NETWORK | dict(config.env), wrapper=no_network_prefix())  # fmt: skip
        signal = signal_of_tests(r, command, str(clean.path))
    return Signal(signal.outcome, f"clean copy: {signal.summary}", signal.failure)
