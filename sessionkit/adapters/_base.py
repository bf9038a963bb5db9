"""The interface every format adapter implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..diagnostics import Diagnostic
from ..document import Document
from ..model import Session

__all__ = ["Adapter"]


@runtime_checkable
class Adapter(Protocol):
    """A format: reads a :class:`Document` into a :class:`Session` and back.

    Attributes:
        name: the registered format name (``"aiwiki-v2"``).
    """

    name: str

    def detect(self, doc: Document) -> int:
        """How sure this adapter is that ``doc`` is its format: 0 (no) to 100."""
        ...

    def read(self, doc: Document) -> Session:
        """Read a note. The result's ``origin`` holds ``doc`` for minimal edits.

        Raises:
            ParseError: the text is unusable (with path and line).
            FormatError: well formed, but not a note of this format.
        """
        ...

    def write(self, session: Session, base: Document | None = None) -> Document:
        """Render ``session``; with ``base``, edit it minimally.

        ``write(read(doc), base=doc).text == doc.text`` for every readable doc.
        """
        ...

    def lint(self, doc: Document) -> list[Diagnostic]:
        """Every finding for ``doc`` (never raises for bad input: reports it)."""
        ...
