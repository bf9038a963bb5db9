"""One note converted and checked: the target is read back and mapped home, and must give
the same facts and keep every word of the source's body (:class:`WordCheck`)."""

from __future__ import annotations

import collections
import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

import attrs

from ...document import Document, parse, parse_pieces, same_text
from ...errors import FormatError, SessionKitError
from ...model import Session
from ..profiles import aiwiki_filename
from .layout import BM_META, _canonical_carrier, _Reuse
from .map import (
    _ABSENT,
    AW_META,
    BASIC_MEMORY,
    Converted,
    Pieces,
    _aiwiki_adapter,
    _fallback_aiwiki,
    _fallback_bm,
    _json_digest,
    _natural,
    _Pivot,
    _read_pivot,
    _render_aiwiki,
    _render_bm,
    _strip_folder,
)

__all__ = ["WordCheck", "chain_notes", "convert_chain", "convert_doc"]


def _plain(
    doc: Document, family: str, session: Session | None = None, like: Session | None = None
) -> bytes:
    """The source adapter's own reading of a note (``session`` when already read), as a comparable
    digest."""
    from .. import get_adapter

    if family == "aiwiki":
        if session is None and like is not None and like.blocks:
            from .._aiwiki_parse import read_page

            session = read_page(doc, _Reuse.every(like))[0]
        return _json_digest(session if session is not None else _aiwiki_adapter(doc).read(doc))
    status = doc.meta.get("status", _ABSENT)
    if session is None:
        session = get_adapter(BASIC_MEMORY).read(doc)
    carrier = session.extra.get(BM_META)
    canonical = _canonical_carrier(carrier)
    if canonical != carrier:  # (a layout written a carried block an entry)
        extra = {**session.extra, BM_META: canonical}
        session = attrs.evolve(session, extra=extra, origin=None)
    return _json_digest(session, repr("<absent>" if status is _ABSENT else status))


#: what :func:`_faithful` found: not faithful, the same session, or the same words too
_NOT_FAITHFUL, _SAME_SESSION, _SAME_TEXT = 0, 1, 2


def _faithful(pivot: _Pivot, doc: Document, family: str, folder: str, today: str) -> int:
    """Whether the pivot writes back into its own format as the same session."""
    project = None
    if family == BASIC_MEMORY:
        value = doc.meta.get("project")
        project = None if value is None else str(value)
    try:
        pieces = (
            pivot.rendered
            or _natural(pivot, family, project=project, folder=folder, today=today)[1]
        )
        if same_text(doc.text, pieces):  # the same text reads the same: no second parse
            return _SAME_TEXT
        again = parse_pieces(pieces, doc.path)
        if _plain(again, family, like=pivot.read) != _plain(doc, family, pivot.read):
            return _NOT_FAITHFUL
        return _SAME_TEXT if WordCheck(doc, family).kept(pieces, family) else _SAME_SESSION
    except SessionKitError:
        return _NOT_FAITHFUL


def convert_doc(
    doc: Document, src: str, dst: str, *, project: str | None, folder: str, today: str
) -> Converted:
    """Convert one note (``src`` and ``dst``: ``aiwiki`` or ``basic-memory``)."""
    pivot = _read_pivot(doc, src, folder)
    if pivot.original is not None and pivot.home == dst:
        key = pivot.original_key
        if key is None:
            key = _natural(pivot, dst, project=None, folder=folder, today=today)[0]
        return Converted(key=_strip_folder(key, folder), pieces=(pivot.original,), carried=False)
    faithful = _SAME_SESSION if pivot.from_carrier else _faithful(pivot, doc, src, folder, today)
    if pivot.layout is not None:  # (only _faithful reads it: a big page's spans go now)
        pivot = attrs.evolve(pivot, layout=None)
    if not faithful:
        pivot = attrs.evolve(pivot, original=doc.text, original_key=doc.path, home=src)
    # The model renders the note's own words again (_SAME_TEXT), and a target that reads
    # back as that model holds them; otherwise the target's words are counted.
    words = WordCheck(doc, src, trusted=faithful == _SAME_TEXT)
    want: list[bytes] = []  # pivot.key(), once needed
    if pivot.original is None:
        try:
            key, pieces = _natural(pivot, dst, project=project, folder=folder, today=today)
            back = _read_pivot(parse_pieces(pieces, key), dst, folder, like=pivot.session)
        except FormatError:
            pass
        else:
            if _same_facts(back, pivot, want) and words.kept(pieces, dst):
                layout = dst == "aiwiki" and pivot.bm_patch is not None
                return Converted(key=key, pieces=pieces, carried=False, layout=layout)
    for last in (False, True):
        if last:
            if pivot.original is not None:
                break
            # the model does not hold every word: the source's exact text travels
            pivot = attrs.evolve(pivot, original=doc.text, original_key=doc.path, home=src)
            want = []
        if dst == "aiwiki":
            key, pieces = _render_aiwiki(_fallback_aiwiki(pivot, today), pivot.aw_key)
        else:
            key, pieces = _render_bm(*_fallback_bm(pivot, project), folder, pivot.bm_key)
        back = _read_pivot(parse_pieces(pieces, key), dst, folder)
        if _same_facts(back, pivot, want) and (
            pivot.original is not None or words.kept(pieces, dst)
        ):
            return Converted(key=key, pieces=pieces, carried=True)
    raise FormatError(
        f"cannot convert to {dst} without losing data (please report this note)", path=doc.path
    )


def convert_chain(notes: Sequence[tuple[str, str]]) -> Converted:
    """A chain of Basic Memory ``coding_session`` checkpoints as one aiwiki page."""
    from ..coding_session import chain_page, split_chain_page

    page = chain_page(notes)
    if split_chain_page(page) != [(k, t) for k, t in notes]:
        raise FormatError(
            "the chain's page does not give its checkpoint notes back (please report this)",
            path=notes[0][0] if notes else None,
        )
    session = _aiwiki_adapter(parse(page)).read(parse(page))
    return Converted(
        key=aiwiki_filename(session.started, session.id), pieces=(page,), carried=False
    )


def chain_notes(doc: Document) -> list[Converted] | None:
    """The Basic Memory notes an aiwiki chain page holds; ``None`` for any other page (then
    :func:`convert_doc` converts it)."""
    import hashlib

    from ..coding_session import CHAIN_KEY, edited_blocks, page_notes, split_chain_page

    if CHAIN_KEY not in doc.text:
        return None
    try:
        if CHAIN_KEY not in doc.meta:
            return None
    except SessionKitError:
        return None
    notes = page_notes(doc.text, doc.path)
    if not notes:
        raise FormatError("a chain page without checkpoint notes", path=doc.path)
    edited = set(edited_blocks(doc.text, doc.path))
    held = {  # the notes the page was made from, where their blocks say so
        key: hashlib.sha256(text.encode("utf-8")).hexdigest()
        for key, text in split_chain_page(doc.text, doc.path)
        if key not in edited
    }
    return [
        Converted(key=key, pieces=(text,), carried=False, was=held.get(key)) for key, text in notes
    ]


_WORD = re.compile(r"\w+")
_HEADINGS = (
    r"(?:Checkpoints|Files touched|Decisions made|Gotchas surfaced|Open questions|"
    r"Next steps|Observations|Relations)"
)
#: lines of a body that are the format's own structure, not a person's words (and,
#: in Basic Memory, the ``[category]`` of an observation line: the format's word)
_STRUCTURE = {
    "aiwiki": re.compile(
        rf"^[ \t]*(?:#{{1,2}}[ \t]+(?:bm: )?{_HEADINGS}[ \t#]*|\(filled by /wrap\))[ \t]*\r?$",
        re.MULTILINE,
    ),
    BASIC_MEMORY: re.compile(
        rf"^[ \t]*#{{1,2}}[ \t]+(?:aiwiki: )?{_HEADINGS}[ \t#]*\r?$"
        r"|^[ \t]*[-*+][ \t]+\[[^\]\n]*\]",
        re.MULTILINE,
    ),
}


class WordCheck:
    """Whether a conversion kept every word of a note's body."""

    def __init__(self, doc: Document, family: str, *, trusted: bool = False) -> None:
        self._doc = doc
        self._family = family
        self._trusted = trusted
        self._source: Any = None

    def _source_words(self) -> Any:
        if self._source is None:
            from ..basic_memory import split_lead

            doc = split_lead(self._doc)[1] if self._family == BASIC_MEMORY else self._doc
            body = _STRUCTURE[self._family].sub("", doc.body)
            self._source = _word_counts(body)
        return self._source

    def kept(self, pieces: Pieces, family: str) -> bool:
        """Whether the target text in ``pieces`` (of format ``family``, each piece whole lines but
        the last) holds every source word."""
        if self._trusted:
            return True
        if isinstance(pieces, str):  # (one text)
            pieces = (pieces,)
        need = self._source_words()
        if not need:
            return True
        # the source's counts less the target's words (a copy shares the words: the
        # target's are not held beside them, only looked up)
        left = need.copy()
        missing = left.total()
        for piece in pieces:  # (a word never spans a line end, nor two pieces)
            missing = _take_words(left, piece, missing)
        if not missing:
            return True
        # a JSON carrier spells line breaks as \n: count its strings decoded
        meta_key = BM_META if family == BASIC_MEMORY else AW_META
        try:
            value = parse_pieces(pieces).meta.get(meta_key)
            data = json.loads(value) if isinstance(value, str) else None
        except (SessionKitError, ValueError):
            return False
        for s in _strings(data):
            missing = _take_words(left, s, missing)
        return not missing


def _take_words(left: collections.Counter[str], text: str, missing: int | None = None) -> int:
    """Count each word of ``text`` off ``left`` (never below zero) and return how
    many source words are still missing (``missing``: that count before, when known)."""
    if missing is None:
        missing = left.total()
    if not missing:
        return 0
    for words in _word_blocks(text):
        for word in words:
            n = left.get(word)
            if n:
                left[word] = n - 1
                missing -= 1
                if not missing:
                    return 0
    return missing


def _word_counts(text: str) -> collections.Counter[str]:
    """How often each word (``\\w+`` run) occurs in ``text``, found a block of lines
    at a time: a word never spans a line break, and a big note's words are never
    all strings in one list at once (0.6 M of them, ~30 MB, in 4 MB of prose)."""
    counts: collections.Counter[str] = collections.Counter()
    for words in _word_blocks(text):
        counts.update(words)
    return counts


def _word_blocks(text: str) -> Iterator[list[str]]:
    """The words of ``text``, a list for each block of lines (see :func:`_word_counts`)."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start + _WORD_BLOCK)
        end = size if end < 0 else end
        yield _WORD.findall(text, start, end)
        start = end


#: characters of text (then up to the end of the line) whose words are found at once
_WORD_BLOCK = 1 << 16


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def _same_facts(back: _Pivot, pivot: _Pivot, want: list[bytes]) -> bool:
    """``back.key() == pivot.key()``; ``want`` caches ``pivot.key()``."""
    if not want:
        want.append(pivot.key())
    return back.key() == want[0]
