"""Every ```python block in README.md and docs/*.md runs, so the docs stay true.

A page's blocks run in order in one namespace (a later block may use an
earlier block's names).  The working directory is a fresh temporary folder
holding a copy of ``examples/`` (so ``examples/wiki/...`` paths work as they
do from the repository root and a block may write files freely); a page that
needs the repository itself says so with a line ``<!-- test-cwd: repo -->``.

A block opts out with a ``<!-- skip-test -->`` line right before its fence
(blank lines in between are allowed).  Blocks inside other fences (a
```markdown example showing a ```python block) are not run.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import traceback
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIP_MARK = "<!-- skip-test -->"
REPO_CWD_MARK = "<!-- test-cwd: repo -->"
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\s`]*)")


class Block:
    """One runnable code block: its page, its 1-based first code line, its code."""

    def __init__(self, page: Path, line: int, code: str) -> None:
        self.page = page
        self.line = line
        self.code = code


def extract_blocks(text: str, page: Path) -> tuple[list[Block], int]:
    """The ``python`` blocks of a Markdown page, and how many were skipped."""
    lines = text.splitlines()
    blocks: list[Block] = []
    skipped = 0
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group("indent"), m.group("fence"), m.group("info").lower()
        start = i
        body: list[str] = []
        i += 1
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        while i < len(lines) and not closing.match(lines[i]):
            line = lines[i]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            i += 1
        i += 1  # past the closing fence
        if info != "python":
            continue
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0 and lines[j].strip() == SKIP_MARK:
            skipped += 1
            continue
        blocks.append(Block(page, start + 2, "\n".join(body) + "\n"))
    return blocks, skipped


def _pages() -> list[Path]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [p for p in pages if p.is_file()]


def _pages_with_code() -> list[Path]:
    return [p for p in _pages() if extract_blocks(p.read_text(encoding="utf-8"), p)[0]]


def _run_page(page: Path, workdir: Path, *, copy: bool = True) -> None:
    text = page.read_text(encoding="utf-8")
    blocks, _ = extract_blocks(text, page)
    if REPO_CWD_MARK in text:
        cwd = ROOT
    else:
        cwd = workdir
        if copy and (ROOT / "examples").is_dir():
            shutil.copytree(ROOT / "examples", workdir / "examples")
    namespace: dict[str, Any] = {"__name__": f"docs_{page.stem.replace('-', '_')}"}
    old = Path.cwd()
    os.chdir(cwd)
    try:
        for block in blocks:
            where = f"{page.relative_to(ROOT)}:{block.line}"
            try:
                exec(compile(block.code, where, "exec"), namespace)
            except Exception:
                pytest.fail(
                    f"the code block at {where} failed:\n\n{block.code}\n{traceback.format_exc()}",
                    pytrace=False,
                )
    finally:
        os.chdir(old)


@pytest.mark.parametrize(
    "page", _pages_with_code(), ids=lambda p: str(p.relative_to(ROOT)).replace(os.sep, "/")
)
def test_page_examples_run_twice_and_leave_the_examples_alone(page: Path, tmp_path: Path) -> None:
    """Every block runs; and a reader may run a page twice in a checkout (#19).

    Examples that write work on a temporary copy, so the second run passes
    too and ``examples/`` is as it was in the checkout after both runs (#45):
    the README's ``sessionkit lint examples/wiki`` still exits 0.
    """
    if (ROOT / "examples").is_dir():
        shutil.copytree(ROOT / "examples", tmp_path / "examples")
    before = _snapshot(tmp_path / "examples")
    _run_page(page, tmp_path, copy=False)
    _run_page(page, tmp_path, copy=False)
    assert _snapshot(tmp_path / "examples") == before, f"{page.name} edits examples/ in place"
    if (tmp_path / "examples" / "wiki").is_dir():
        from sessionkit.cli import main

        old = Path.cwd()
        os.chdir(tmp_path)
        try:
            assert main(["sessionkit", "lint", "examples/wiki"]) == 0
        finally:
            os.chdir(old)


def _snapshot(folder: Path) -> dict[str, bytes]:
    # (a sync's state and lock files beside the notes are no change to the notes)
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.startswith((".sessionkit-", ".sessionkit.lock"))
    }


def test_readme_has_a_runnable_example() -> None:
    readme = ROOT / "README.md"
    blocks, _ = extract_blocks(readme.read_text(encoding="utf-8"), readme)
    assert blocks, "README.md should show a Python example that runs"


# -- the extractor itself --------------------------------------------------------


def test_extractor_finds_blocks_in_order_and_honours_skip(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    text = (
        "# T\n\n```python\nx = 1\n```\n\n<!-- skip-test -->\n\n```python\nraise SystemExit\n```\n"
        "\n````markdown\n```python\nnot run\n```\n````\n\n```bash\nls\n```\n"
        "\n- item\n\n    ```python\n    y = x + 1\n    ```\n"
    )
    blocks, skipped = extract_blocks(text, page)
    assert [b.code for b in blocks] == ["x = 1\n", "y = x + 1\n"]
    assert [b.line for b in blocks] == [4, 26]
    assert skipped == 1


def test_run_page_reports_page_and_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    page = docs / "bad.md"
    page.write_text("x\n\n```python\nvalue = 1\n```\n\n```python\nassert value == 2\n```\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(pytest.fail.Exception) as info:
        _run_page(page, work)
    assert "docs/bad.md:8" in str(info.value)


def test_model_page_json_is_what_show_json_prints() -> None:
    """The JSON example in docs/model.md is the real output for its example page."""
    import json

    import sessionkit
    from sessionkit.serialize import to_dict

    text = (ROOT / "docs" / "model.md").read_text(encoding="utf-8")
    shown = re.search(
        r"`(examples/wiki/aiwiki/sessions/[^`]+\.md)`:\n\n```json\n(.*?)\n```", text, re.S
    )
    assert shown, "docs/model.md should show the JSON of an example page"
    page = ROOT / shown.group(1)
    session = sessionkit.loads(page.read_text(encoding="utf-8"), path=str(page))
    assert json.loads(shown.group(2)) == to_dict(session)


# -- the API reference (#19: no raw roles, only public names) ---------------------------


def test_api_reference_names_only_public_modules() -> None:
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    directives = re.findall(r"^::: (\S+)", text, re.M)
    assert directives and not [d for d in directives if re.search(r"(^|\.)_", d)], directives
    import sessionkit

    for name in ("loads", "dumps", "lint", "decode", "consume", "directives_of"):
        assert f"::: sessionkit.{name}" in text and name in sessionkit.__all__


def test_rendered_roles_become_code() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("roles", ROOT / "docs_hooks" / "roles.py")
    assert spec is not None and spec.loader is not None
    roles = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(roles)
    html = (
        "<p>See :class:<code>~sessionkit.model.Session</code>, :func:<code>loads</code>"
        " and :meth:<code>sessionkit.Store.get</code>; a : colon stays.</p>"
    )
    assert roles.on_page_content(html) == (
        "<p>See <code>Session</code>, <code>loads</code> and "
        "<code>sessionkit.Store.get</code>; a : colon stays.</p>"
    )
    assert "docs_hooks/roles.py" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_type_checkers_see_the_public_names_python_gives() -> None:
    import ast
    import importlib

    import sessionkit

    tree = ast.parse((ROOT / "sessionkit" / "__init__.py").read_text(encoding="utf-8"))
    blocks = [n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.dump(n)]
    block = blocks[-1]
    seen = {
        alias.name: f"sessionkit.{node.module}"
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
        if alias.asname == alias.name
    }
    assert set(seen) == set(sessionkit.__all__) - {"__version__"}
    for name, module in seen.items():
        assert getattr(sessionkit, name) is getattr(importlib.import_module(module), name)
    assert not hasattr(sessionkit, "fastpaths")
