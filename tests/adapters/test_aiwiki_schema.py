"""The built-in aiwiki schemas are the schema pages shipped with sessionkit.

Lint takes the built-in schemas from data kept in the package (no YAML read
at start-up), and so a wiki's own schema page that is a copy of a shipped
one; these tests hold that data to the pages as the YAML reads them, so that
an edit of a shipped page without the data (or the other way round) fails here.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from sessionkit.adapters.aiwiki import builtin_schema, load_schema
from sessionkit.errors import FormatError


def _shipped(version: int) -> str:
    folder = resources.files("sessionkit.adapters").joinpath("schemas")
    return folder.joinpath(f"aiwiki-session-v{version}.md").read_text("utf-8")


def _commented(page: str) -> str:
    """The page with a comment in its frontmatter: the same YAML in another text, which
    the YAML loader reads (no shipped page has this frontmatter)."""
    assert page.startswith("---\n")
    return "---\n# a comment\n" + page[4:]


@pytest.mark.parametrize("version", [1, 2])
def test_the_builtin_schema_is_the_shipped_page(version: int) -> None:
    page = _shipped(version)
    assert f"\nschema_version: {version}\n" in page
    schema = builtin_schema(version)
    # what the YAML reads, and what a copy of the shipped page gives (the data)
    assert schema == load_schema(_commented(page), source=f"builtin:v{version}")
    assert schema == load_schema(page, source=f"builtin:v{version}")
    assert schema.version == version and schema.sections  # (not two empty ones)


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_a_copy_of_a_shipped_page_is_read_without_yaml(tmp_path: Path, line_end: str) -> None:
    (tmp_path / "aiwiki" / "schemas").mkdir(parents=True)
    page = tmp_path / "aiwiki" / "schemas" / "session.md"
    page.write_bytes(_shipped(2).replace("\n", line_end).encode())
    code = (
        "import sys\nfrom sessionkit.ops.lint import WikiSchemas\n"
        f"schema = WikiSchemas().for_root({str(tmp_path)!r})\n"
        "print(schema.source, schema.hard_cap, 'yaml' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(page), "400", "False"]
    assert load_schema(page) == builtin_schema(2).replace(source=str(page))


def test_a_changed_copy_is_read_as_it_says(tmp_path: Path) -> None:
    shipped = _shipped(2)
    assert "\nhard_cap_lines: 400\n" in shipped
    page = tmp_path / "session.md"
    page.write_text(shipped.replace("\nhard_cap_lines: 400\n", "\nhard_cap_lines: 300\n"))
    assert load_schema(page).hard_cap == 300
    # a change below the frontmatter is no change to the schema
    page.write_text(shipped + "\nA note of this wiki's own.\n")
    assert load_schema(page) == builtin_schema(2).replace(source=str(page))


def test_a_schema_read_back_from_a_pickle_is_one_object_in_a_process() -> None:
    # (lint --jobs N sends each chunk of notes with its schema: a worker keeps what it
    # works out for a schema by the object, which it thus makes once)
    schema = builtin_schema(2).replace(source="/wiki/aiwiki/schemas/session.md")
    first, second = (pickle.loads(pickle.dumps(schema)) for _ in range(2))
    assert first == schema and first is second and first is not schema
    # a value that cannot be hashed: an equal schema each time
    odd = schema.replace(keys=(schema.keys[0].replace(equals=["session"]),))
    back = pickle.loads(pickle.dumps(odd))
    assert back == odd and back is not pickle.loads(pickle.dumps(odd))


def test_no_other_builtin_version() -> None:
    with pytest.raises(FormatError, match="no built-in aiwiki session schema version 3"):
        builtin_schema(3)
