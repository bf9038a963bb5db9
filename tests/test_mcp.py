"""``sessionkit mcp`` driven over stdio by the MCP SDK's own client."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PAGE = "2026-05-18-7e8a3f2.md"


def _text(result: Any) -> str:
    assert not result.is_error, result
    return "".join(getattr(c, "text", "") for c in result.content)


async def _drive(wiki: Path, env: dict[str, str]) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "sessionkit", "mcp"], cwd=str(wiki), env=env
    )
    out: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        out["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
        out["search"] = _text(await session.call_tool("search_sessions", {"query": "psycopg"}))
        out["page2"] = _text(
            await session.call_tool("search_sessions", {"query": "postgres", "limit": 2})
        )
        out["read"] = _text(
            await session.call_tool(
                "read_session", {"id_or_path": "7e8a3f2", "section": "Next steps"}
            )
        )
        out["latest"] = _text(await session.call_tool("latest_handoff", {}))
        out["add"] = _text(
            await session.call_tool(
                "add_next_step", {"text": "Load-test COPY with 1M rows", "session": "7e8a3f2"}
            )
        )
        out["found_new"] = _text(
            await session.call_tool("search_sessions", {"query": "load-test", "kind": "next-step"})
        )
        out["consume"] = _text(
            await session.call_tool("consume_directive", {"session": "7e8a3f2", "index": 2})
        )
        bad = await session.call_tool("read_session", {"id_or_path": "nope123"})
        out["bad"] = (bad.is_error, "".join(getattr(c, "text", "") for c in bad.content))
    return out


def test_an_agent_searches_reads_adds_and_consumes(tmp_path: Path) -> None:
    import anyio

    wiki = tmp_path / "wiki"
    shutil.copytree(EXAMPLES / "wiki", wiki)
    (wiki / ".git").mkdir()  # the repository root: the configured store
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SESSIONKIT_", "CLAUDE_"))}
    env.update(
        SESSIONKIT_CACHE_DIR=str(tmp_path / "cache"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        HOME=str(tmp_path / "home"),
    )
    page = wiki / "aiwiki" / "sessions" / PAGE
    before = page.read_text(encoding="utf-8")

    out = anyio.run(_drive, wiki, env)

    assert out["tools"] == [
        "add_decision",
        "add_next_step",
        "consume_directive",
        "latest_handoff",
        "read_session",
        "search_sessions",
    ]
    assert f"{PAGE}:59 | gotcha | 2026-05-18 | 7e8a3f2 | " in out["search"]
    rows = out["page2"].splitlines()
    assert len(rows) == 3 and rows[-1] == "(more: offset=2)"
    assert all(len(row) < 400 for row in rows)  # compact rows
    assert out["read"].startswith(f"{PAGE}\n\n## Next steps\n")
    assert "- Run the 90-day backfill against Postgres" in out["read"]
    assert "Unconsumed directives (1)" in out["latest"] and "support-dream" in out["latest"]
    assert out["add"] == f"{PAGE}: next-step added: Load-test COPY with 1M rows"
    assert out["found_new"].endswith(
        f"{PAGE}:69 | next-step | 2026-05-18 | 7e8a3f2 | [Load-test] COPY with 1M rows"
    )
    assert out["consume"].startswith(f"{PAGE}: directive 2 consumed at ")
    assert out["bad"][0] is True
    assert out["bad"][1].endswith(f"{wiki}: no session 'nope123'")

    after = page.read_text(encoding="utf-8")
    changed = [
        (a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=False) if a != b
    ]
    # the directive's header flipped in place, and its Status line with it; nothing else
    assert [a for a, _ in changed] == ["**Dream directive (unconsumed):**", "- Status: unconsumed"]
    assert changed[0][1].startswith("**Dream directive (consumed at ")
    assert changed[1][1] == "- Status: consumed"
    assert after.splitlines()[len(before.splitlines())] == "- Load-test COPY with 1M rows"


def test_install_hooks_registers_the_server_and_keeps_every_other_entry(tmp_path: Path) -> None:
    import json
    import subprocess

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    mine = '{\n  "mcpServers": {\n    "other": {"command": "x", "args": []}\n  },\n  "z": 1\n}\n'
    (repo / ".mcp.json").write_text(mine)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONKIT_")}
    env["HOME"] = str(tmp_path / "home")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "sessionkit", "install-hooks", "--mcp", *args],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    first = run()
    assert first.returncode == 0, first.stderr
    data = json.loads((repo / ".mcp.json").read_text())
    assert list(data) == ["mcpServers", "z"]
    assert list(data["mcpServers"]) == ["other", "sessionkit"]
    entry = data["mcpServers"]["sessionkit"]
    assert entry["args"][-1] == "mcp" and os.path.isabs(entry["command"])
    again = run()
    assert "unchanged (already installed)" in again.stdout
    assert run("--remove").returncode == 0
    assert json.loads((repo / ".mcp.json").read_text()) == json.loads(mine)
    user = run("--user")
    assert user.returncode == 2 and "claude mcp add --scope user sessionkit" in user.stderr
