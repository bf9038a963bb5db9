"""The Markdown inputs of Basic Memory's own tests, docs and plugins, from its sdist.

``pip download basic-memory==<version> --no-deps --no-binary :all:`` fetches the
source distribution once into a temp folder (``SK_BM_SDIST`` names a local copy
instead); :func:`harvest` yields ``(name, text)`` for every ``.md`` file in it and
every note-like string literal of its Python tests (``textwrap.dedent``-ed, as
its tests use them).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

VERSION = "0.24.1"
#: where the sdist is kept between runs
CACHE = Path(tempfile.gettempdir()) / "sessionkit-interop-sdist"
#: longest a download may take (a first run builds the sdist's metadata)
DOWNLOAD_SECONDS = 900


def sdist() -> Path | str:
    """The sdist's path, or why there is none (a sentence)."""
    given = os.environ.get("SK_BM_SDIST")
    if given:
        return Path(given) if Path(given).is_file() else f"SK_BM_SDIST={given} is not a file"
    name = f"basic_memory-{VERSION}.tar.gz"
    if (CACHE / name).is_file():
        return CACHE / name
    CACHE.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", f"basic-memory=={VERSION}", "--no-deps"]
    cmd += ["--no-binary", ":all:", "--ignore-requires-python", "-d", str(CACHE)]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=DOWNLOAD_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"pip download basic-memory=={VERSION} did not finish: {exc}"
    if (CACHE / name).is_file():
        return CACHE / name
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
    return f"pip download basic-memory=={VERSION} failed: {tail[0]}"


def _looks_like_note(text: str) -> bool:
    return "\n" in text and (
        text.lstrip().startswith("---") or "- [" in text or "[[" in text or "\n## " in text
    )


def harvest(path: Path) -> Iterator[tuple[str, str]]:
    """``(name, text)`` of each Markdown input in the sdist at ``path``."""
    with tarfile.open(path) as tar:
        for member in sorted(tar.getmembers(), key=lambda m: m.name):
            if not member.isfile():
                continue
            name = member.name.split("/", 1)[-1]
            f = tar.extractfile(member)
            if f is None:
                continue
            if name.endswith(".md"):
                try:
                    yield name, f.read().decode("utf-8")
                except UnicodeDecodeError:
                    continue
            elif name.endswith(".py") and name.startswith(("tests/", "test-int/")):
                try:
                    tree = ast.parse(f.read().decode("utf-8"))
                except (SyntaxError, UnicodeDecodeError, ValueError):
                    continue
                for node in ast.walk(tree):
                    if (
                        isinstance(node, ast.Constant)
                        and isinstance(node.value, str)
                        and _looks_like_note(node.value)
                    ):
                        text = textwrap.dedent(node.value)
                        yield f"{name}:{node.lineno}", text.lstrip("\n")
