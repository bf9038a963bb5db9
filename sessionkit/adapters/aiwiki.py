"""The aiwiki session page format, schema versions 1 and 2.

An aiwiki session page is Markdown with YAML frontmatter (``schema_id:
session``) and a fixed set of ``##`` sections (see the schema pages shipped in
``sessionkit/adapters/schemas/``).  This module offers the two adapters
:data:`AIWIKI_V2` and :data:`AIWIKI_V1`, the schema loaders, and the pure
migration transform :func:`migrate_document`.

Mapping to the model (details in the aiwiki format docs):

* frontmatter ``status``/``date_start``/``date_end``/``focus``/``session_id``/
  ``last_commit`` → ``status``/``started``/``ended``/``focus``/``id``/
  ``last_commit``; ``schema_id`` and ``schema_version`` belong to the format;
  every other key → ``extra`` (in order, values as loaded);
* ``## Checkpoints`` → ``checkpoints``; ``## Files touched`` → citations (a
  bullet that is not a citation is kept verbatim as
  ``Citation(path=<text>, code=False)``); the other known sections → tuples
  of bullet texts; unknown sections → ``sections``; text before the first
  section → ``ExtraSection(title="")`` first in ``sections``.
"""

from __future__ import annotations

import os
import re

from ..diagnostics import Diagnostic
from ..document import Document
from ..errors import FormatError, SessionKitError, UnsupportedFormatError
from . import HINT_SCORE
from ._aiwiki_lint import lint_page
from ._aiwiki_parse import read_header, read_page
from ._aiwiki_schema import KeyRule, Schema, builtin_schema, load_schema, schema_for_root

TYPE_CHECKING = False  # (the model, attrs and the writer are imported on first use: lint
if TYPE_CHECKING:  # needs none of them)
    from typing import Any

    from ..model import Session

__all__ = [
    "AIWIKI_V1",
    "AIWIKI_V2",
    "AiwikiAdapter",
    "KeyRule",
    "Schema",
    "adapter_for_root",
    "builtin_schema",
    "load_schema",
    "migrate_document",
    "schema_for_root",
]

_SESSIONS_DIR = re.compile(r"(?:^|/)aiwiki/sessions/")


def _under_sessions(doc: Document) -> bool:
    path = doc.path
    return bool(path and "sessions" in path and _SESSIONS_DIR.search(path.replace("\\", "/")))


class AiwikiAdapter:
    """An aiwiki session page adapter for one schema version.

    Args:
        version: 1 or 2.
        schema: the schema to lint and render with; the built-in page of
            ``version`` when omitted (see :func:`schema_for_root` for a
            wiki's own).
    """

    def __init__(self, version: int = 2, schema: Schema | None = None) -> None:
        if version not in (1, 2):
            raise UnsupportedFormatError(f"no aiwiki session schema version {version}")
        self.version = version
        self.name = f"aiwiki-v{version}"
        self._schema = schema

    @property
    def schema(self) -> Schema:
        """The schema this adapter renders and lints with."""
        return self._schema if self._schema is not None else builtin_schema(self.version)

    def with_schema(self, schema: Schema) -> AiwikiAdapter:
        """A copy of this adapter that uses ``schema``."""
        return AiwikiAdapter(self.version, schema)

    def __repr__(self) -> str:
        return f"AiwikiAdapter(version={self.version}, schema={self.schema.source!r})"

    def detect(self, doc: Document) -> int:
        """Claim pages with ``schema_id: session``: 90 for this version, 0 for the other.

        A page without ``schema_version`` is claimed by v2 with 50 (lint then
        reports AW002); a path under ``aiwiki/sessions/`` adds 10.  A note
        without ``schema_id: session`` scores 0 (:data:`HINT_SCORE`, 5, for v2 under
        ``aiwiki/sessions/``, so lint reports what is wrong with it: AW002 for
        none, AW004 for another), as does unusable frontmatter outside that
        folder.
        """
        try:
            meta = doc.meta
        except SessionKitError:
            meta = None
        if meta is None or meta.get("schema_id") != "session":
            # under aiwiki/sessions/ a page is meant to be a session (also one whose
            # frontmatter does not read): v2 claims it weakly, so lint says what is wrong
            # with it (AW001, AW002, AW004), not SK001
            return HINT_SCORE if self.version == 2 and _under_sessions(doc) else 0
        version = meta.get("schema_version")
        if version == self.version and not isinstance(version, bool):
            score = 90
        elif self.version == 2 and (isinstance(version, bool) or version != 1):
            score = 50  # missing or unknown: v2 takes it, lint says why
        else:
            return 0
        return min(100, score + (10 if _under_sessions(doc) else 0))

    def read(self, doc: Document) -> Session:
        """Read a page into a :class:`Session` (origin set for minimal edits).

        Raises:
            ParseError: unusable frontmatter (with path and line).
            FormatError: ``schema_id`` is not ``session`` or ``status`` is unknown.
        """
        import attrs

        from ..model import Origin

        session, _ = read_page(doc)
        return attrs.evolve(session, origin=Origin(format=self.name, document=doc, session=session))

    def read_header(self, doc: Document) -> dict[str, Any]:
        """The fields of :meth:`read`'s session that the page's frontmatter holds, by
        Session field name (``status`` as its word), without reading the body: what
        ``sessionkit ls`` lists.  The same errors as :meth:`read`.
        """
        return read_header(doc)

    def write(self, session: Session, base: Document | None = None) -> Document:
        """Render ``session``; with ``base``, splice only what differs from it.

        Raises:
            FormatError: the session cannot be written in this version (v1
                has no ``session_id`` and no checkpoints), or an ``extra``
                key collides with a schema key.
        """
        from ._aiwiki_write import edit_page, render_page

        if base is None:
            return render_page(session, self.schema, self.version)
        return edit_page(session, base, self.schema, self.version)

    def lint(self, doc: Document, schema: Schema | None = None) -> list[Diagnostic]:
        """Every finding for ``doc`` (codes AW001..AW019); never raises.

        A page is linted by the rules of its own ``schema_version``.
        """
        return lint_page(doc, schema or self._schema, self.version)


#: the aiwiki session page format, schema version 2
AIWIKI_V2 = AiwikiAdapter(2)
#: the aiwiki session page format, schema version 1
AIWIKI_V1 = AiwikiAdapter(1)


def _meta(doc: Document) -> dict[str, object]:
    try:
        return doc.meta
    except SessionKitError as exc:
        raise exc.with_path(doc.path) from None


def _set_version(doc: Document, version: int) -> Document:
    span = doc.key_spans["schema_version"]
    if span[1] - span[0] == 1:
        from ._aiwiki_write import replace_value

        line = replace_value(doc.line_text(span[0]), str(version))
        if line is not None:
            return doc.replace_line(span[0], line)
    return doc.set_key("schema_version", str(version))


def migrate_document(doc: Document, to: str = "aiwiki-v2") -> Document:
    """Move a page between aiwiki schema versions as a minimal splice.

    To ``aiwiki-v2``: ``schema_version`` is set to 2 on its own line (an
    inline comment stays) and ``session_id: ~`` is added on the line right
    after it (unless the page already has the key); every other byte is
    kept.  A page already at v2 comes back unchanged (the same object).

    To ``aiwiki-v1``: only when nothing is lost (no checkpoint entries, no
    ``session_id`` value): ``schema_version`` becomes 1, the empty
    ``session_id`` key and an empty ``## Checkpoints`` heading go.

    Raises:
        ParseError: unusable frontmatter (with line).
        FormatError: not a session page, no or unknown ``schema_version``, or
            a v2 → v1 move that would lose data (with the reason).
        UnsupportedFormatError: ``to`` is not an aiwiki format.
    """
    if to not in ("aiwiki-v1", "aiwiki-v2"):
        raise UnsupportedFormatError(f"cannot migrate an aiwiki page to {to!r}")
    target = int(to[-1])
    meta = _meta(doc)
    if not doc.has_frontmatter or meta.get("schema_id") != "session":
        raise FormatError(
            "not an aiwiki session page (schema_id is not 'session')",
            path=doc.path,
            line=doc.key_line("schema_id") or 1,
        )
    version = meta.get("schema_version")
    if version not in (1, 2) or isinstance(version, bool):
        raise FormatError(
            f"schema_version is {version!r}; only pages of version 1 or 2 can be migrated",
            path=doc.path,
            line=doc.key_line("schema_version") or 1,
        )
    if version == target:
        return doc
    if "schema_version" not in doc.key_spans:
        raise FormatError(
            "schema_version is not on a line of its own (flow-style frontmatter?): "
            "migrate this page by hand",
            path=doc.path,
            line=2,
        )
    if target == 2:
        new = _set_version(doc, 2)
        if "session_id" not in new.key_spans:
            at = new.key_spans["schema_version"][1]
            new = new.insert_lines(at, ["session_id: ~"])
        return new
    # v2 -> v1
    if meta.get("session_id") is not None:
        raise FormatError(
            "cannot move to v1: the page has a session_id, which v1 cannot hold",
            path=doc.path,
            line=doc.key_line("session_id"),
        )
    sec = doc.section("Checkpoints")
    if sec is not None and any(line.strip() for line in doc.section_lines(sec)):
        raise FormatError(
            "cannot move to v1: the page has checkpoints, which v1 cannot hold",
            path=doc.path,
            line=sec.start + 1,
        )
    new = doc
    if sec is not None:
        new = new.replace_lines(sec.start, sec.end, [])
    new = new.remove_key("session_id")
    return _set_version(new, 1)


def adapter_for_root(repo_root: str | os.PathLike[str], version: int = 2) -> AiwikiAdapter:
    """An adapter that uses the wiki's own schema page when ``repo_root`` has one."""
    return AiwikiAdapter(version, schema_for_root(repo_root, version))
