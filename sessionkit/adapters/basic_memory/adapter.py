"""The ``basic-memory`` adapter: detect, read, write and lint a Basic Memory note."""

from __future__ import annotations

import attrs

from ...diagnostics import Diagnostic
from ...document import Document, parse
from ...errors import SessionKitError
from ...model import Origin, Session
from .. import picoschema
from .lint import _lint
from .read import DEFAULT_FOLDER, SESSION_TYPES, _session_fields, split_lead
from .write import _write_with_base, render_note

__all__ = ["BASIC_MEMORY", "NAME", "BasicMemoryAdapter"]

NAME = "basic-memory"


def _lead_lines(lead: str) -> int:
    return lead.count("\n") if "\n" in lead else lead.count("\r")


def _shift(exc: SessionKitError, lead: str) -> SessionKitError:
    if lead and exc.line is not None:
        exc.line += _lead_lines(lead)
    return exc


@attrs.define
class BasicMemoryAdapter:
    """The ``basic-memory`` format.

    Attributes:
        name: ``"basic-memory"``.
        folder: folder of new notes (the plugin's ``sessions``).
        schemas: project schema notes, consulted before the built-in ones.
    """

    name: str = NAME
    folder: str = DEFAULT_FOLDER
    schemas: tuple[picoschema.Schema, ...] = ()

    def detect(self, doc: Document) -> int:
        """90 for a session note, 60 for a note with a permalink, 30 for one with a
        type and a title, 20 for one with a title, else 0."""
        doc = split_lead(doc)[1]
        try:
            meta = doc.meta
        except SessionKitError:
            return 0
        if "schema_id" in meta or "schema_version" in meta:
            return 0
        if meta.get("type") in SESSION_TYPES:
            return 90
        if "permalink" in meta:
            return 60
        if "type" in meta and "title" in meta:
            return 30
        if "title" in meta:  # an ordinary note: Basic Memory indexes it as it is
            return 20
        return 0

    def read(self, doc: Document) -> Session:
        """Read a Basic Memory note into a :class:`Session` (see the module docs).

        Raises:
            ParseError: unclosed or invalid frontmatter (with its line);
                Basic Memory itself would index such a note as plain Markdown.
        """
        lead, note = split_lead(doc)
        try:
            fields, _, _ = _session_fields(note)
        except SessionKitError as exc:
            raise _shift(exc, lead).with_path(doc.path) from None
        # built twice rather than attrs.evolve'd: the same fields, half the work
        session = Session(**fields)
        return Session(**fields, origin=Origin(format=self.name, document=doc, session=session))

    def write(self, session: Session, base: Document | None = None) -> Document:
        """Render ``session``; with ``base``, splice only what changed.

        Without a base the note is what Basic Memory's ``write_note`` would
        write (permalink prefixed with ``session.project``'s slug).

        Raises:
            FormatError: a value Basic Memory cannot hold (a multi-line
                observation, or an edit to a link that is part of prose).
        """
        if base is not None:
            lead, note = split_lead(base)
            if not lead:
                return _write_with_base(session, base)
            edited = _write_with_base(session, note)
            return base if edited is note else parse(lead + edited.text, base.path)
        path, text = render_note(session, folder=self.folder)
        return parse(text, path)

    def lint(self, doc: Document) -> list[Diagnostic]:
        """Findings: BM001 unusable frontmatter, BM002–BM004 missing title/type/permalink,
        BM005 schema problems (warning in warn mode, error in strict), BM006 bad schema,
        BM007 a secret (see :mod:`sessionkit.redaction`), BM008 a line of a fact section
        that is no fact (Basic Memory does not index it; the model keeps it in
        :attr:`~sessionkit.model.Session.sections`).
        """
        lead, note = split_lead(doc)
        found = _lint(note, self.schemas)
        if lead:
            shift = _lead_lines(lead)
            found = [d if d.line is None else d.replace(line=d.line + shift) for d in found]
        return found


#: the registered ``basic-memory`` adapter
BASIC_MEMORY = BasicMemoryAdapter()
