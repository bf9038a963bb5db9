"""An aiwiki session page, section by section: the public read and render of its parts.

Light to import (no YAML emitter, no schema pages): hooks, stores and
operations that need one part of a page (its citations, where its sections
are) use these instead of the whole adapter.

* :func:`read_page` reads a page into a :class:`~sessionkit.model.Session`
  and its :class:`Layout` (where every part is); :func:`scan` finds the
  parts alone.
* :func:`parse_citation` / :func:`parse_citation_lenient` read a ``Files
  touched`` bullet.
* :func:`list_section_lines` renders one list section's body as the writer
  spells it (its :class:`~sessionkit.model.Block` layout, or plain items, or
  the placeholder).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._aiwiki_parse import (
    CHECKPOINTS,
    LIST_FIELDS,
    PLACEHOLDER,
    ItemSpan,
    Layout,
    list_blocks_of,
    parse_citation,
    parse_citation_lenient,
    read_page,
    scan,
)

if TYPE_CHECKING:
    from ..model import Session

__all__ = [
    "CHECKPOINTS",
    "LIST_FIELDS",
    "PLACEHOLDER",
    "ItemSpan",
    "Layout",
    "list_blocks_of",
    "list_section_lines",
    "parse_citation",
    "parse_citation_lenient",
    "read_page",
    "scan",
]


def list_section_lines(session: Session, title: str) -> list[str]:
    """The body lines of list section ``title`` (``Next steps``…) of ``session``,
    without blank lines around it, as the aiwiki writer spells them."""
    from ._aiwiki_write import list_section_lines as render

    return render(session, title)
