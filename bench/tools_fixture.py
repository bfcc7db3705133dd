"""What `python -m bench tools` sets up, so every kind of tool is offered through the same host retrieval:
a workspace folder (the workspace tools), two documents in the knowledge base (`search_documents`), and
two MCP servers in the bench home's mcp.json (bench/tool_servers.py: the `office__*` tools, and a
Tavily-compatible search that becomes `web_search`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

WORKSPACE = {
    "README.md": "# GMV export\nExports last month's GMV by region to CSV.\n",
    "src/report.py": "import csv\n\n\ndef export(rows, path):\n    with open(path, 'w') as f:\n        csv.writer(f).writerows(rows)\n",
    "tests/test_report.py": "from src.report import export\n\n\ndef test_export(tmp_path):\n    export([[1]], tmp_path / 'a.csv')\n",
    "config.yaml": "region: all\n",
}
DOCUMENTS = {
    "refund-policy.md": "# 退款政策 Refund policy\n\n## 退款期限\n\n客户在签收后七天内可以申请无理由退款，退款在三个工作日内原路退回。\n"
                        "Customers may ask for a refund within seven days of delivery.\n\n## 例外\n\n"
                        "定制商品和已拆封的数码产品不支持无理由退款。Customized products cannot be returned without a reason.\n",
    "travel-expenses.md": "# 差旅报销制度 Travel expense policy\n\n## 住宿\n\n一线城市住宿每晚不超过600元，其他城市不超过400元。\n"
                          "Hotels: at most 600 yuan a night in tier-1 cities, 400 elsewhere.\n\n## 交通\n\n"
                          "高铁二等座、经济舱可以报销；出租车需附行程单。Economy flights and second-class trains are reimbursed.\n",
}
SERVERS = Path(__file__).resolve().parent / "tool_servers.py"


def _write(base: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(text, encoding="utf-8")
    return base


def workspace(base: Path) -> Path:
    return _write(base, WORKSPACE)


def mcp_config(path: Path) -> None:
    """The bench's MCP servers, started with this interpreter (which has the SDK)."""
    servers = {name: {"command": sys.executable, "args": [str(SERVERS), name]} for name in ("office", "search")}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}, indent=1), encoding="utf-8")


def documents(kb, base: Path) -> None:
    """The fixture documents, searchable in the knowledge base (nothing when there is no knowledge base)."""
    if kb is not None:
        folder = _write(base, DOCUMENTS)
        kb.add([folder / name for name in DOCUMENTS])
