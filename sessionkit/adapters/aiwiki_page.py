"""An aiwiki session page, section by section: the public read and render of its parts.

Light to import (no attrs, no model, no YAML emitter, no schema pages): the
agent hooks read a page with it on every run, and stores and operations that
need one part of a page (its citations, where its sections are) use it
instead of the whole adapter.

* :func:`read_page` reads a page into a :class:`~sessionkit.model.Session`
  and its :class:`Layout` (where every part is); :func:`read_parts` reads it
  into plain :class:`Parts` (no model: the same reader, building light parts);
  :func:`scan` finds the body's parts alone.
* :func:`parse_citation` / :func:`parse_citation_lenient` read a ``Files
  touched`` bullet.
* :func:`checkpoint_lines` renders a checkpoint entry as the writer spells it
  (from the model's :class:`~sessionkit.model.Checkpoint` or the light
  :class:`CheckpointParts`).
* :func:`list_section_lines` renders one list section's body as the writer
  spells it (its :class:`~sessionkit.model.Block` layout, or plain items, or
  the placeholder).
"""

from __future__ import annotations

from ._aiwiki_parse import (
    CHECKPOINTS,
    LIST_FIELDS,
    PLACEHOLDER,
    CheckpointParts,
    DirectiveParts,
    ItemSpan,
    ItemSpans,
    Layout,
    Parts,
    checkpoint_lines,
    list_blocks_of,
    parse_citation,
    parse_citation_lenient,
    read_page,
    read_parts,
    scan,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..model import Session

__all__ = [
    "CHECKPOINTS",
    "LIST_FIELDS",
    "PLACEHOLDER",
    "CheckpointParts",
    "DirectiveParts",
    "ItemSpan",
    "ItemSpans",
    "Layout",
    "Parts",
    "checkpoint_lines",
    "list_blocks_of",
    "list_section_lines",
    "parse_citation",
    "parse_citation_lenient",
    "read_page",
    "read_parts",
    "scan",
]


def list_section_lines(session: Session, title: str) -> list[str]:
    """The body lines of list section ``title`` (``Next steps``…) of ``session``,
    without blank lines around it, as the aiwiki writer spells them."""
    from ._aiwiki_write import list_section_lines as render

    return render(session, title)
