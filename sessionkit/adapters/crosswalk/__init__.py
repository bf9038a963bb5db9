"""The note-level crosswalk between aiwiki session pages and Basic Memory session notes:
the field mapping (:mod:`.map`) and the checked conversion of one note (:mod:`.check`)."""

from .check import WordCheck, chain_notes, convert_chain, convert_doc
from .map import (
    AIWIKI,
    BASIC_MEMORY,
    Converted,
    derived_title,
    detect_family,
    note_family,
    observation_text,
    pivot_from_aiwiki,
    pivot_from_bm,
    today_utc,
)

__all__ = [
    "AIWIKI",
    "BASIC_MEMORY",
    "Converted",
    "WordCheck",
    "chain_notes",
    "convert_chain",
    "convert_doc",
    "derived_title",
    "detect_family",
    "note_family",
    "observation_text",
    "pivot_from_aiwiki",
    "pivot_from_bm",
    "today_utc",
]
