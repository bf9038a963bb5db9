"""The built-in aiwiki schemas are the schema pages shipped with sessionkit.

Lint takes the built-in schemas from data kept in the package (no YAML read
at start-up); this test holds that data to the pages themselves, so that an
edit of a shipped page without the data (or the other way round) fails here.
"""

from __future__ import annotations

from importlib import resources

import pytest

from sessionkit.adapters.aiwiki import builtin_schema, load_schema
from sessionkit.errors import FormatError


def _shipped(version: int) -> str:
    folder = resources.files("sessionkit.adapters").joinpath("schemas")
    return folder.joinpath(f"aiwiki-session-v{version}.md").read_text("utf-8")


@pytest.mark.parametrize("version", [1, 2])
def test_the_builtin_schema_is_the_shipped_page(version: int) -> None:
    page = _shipped(version)
    assert f"\nschema_version: {version}\n" in page
    schema = builtin_schema(version)
    assert schema == load_schema(page, source=f"builtin:v{version}")
    assert schema.version == version and schema.sections  # (not two empty ones)


def test_no_other_builtin_version() -> None:
    with pytest.raises(FormatError, match="no built-in aiwiki session schema version 3"):
        builtin_schema(3)
