"""The memoised permalink and file name functions give what the plain ones give.

:func:`generate_permalink` and :func:`filename_for_title` are pure functions of
their strings; conversion asks for the same note's permalink when it writes
the note and again when it reads it back, so both are memoised.  These tests
call them repeatedly (cold and warm) and compare with the functions the memo
wraps, including the empty project, which means "no project".
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sessionkit.adapters import _bm_permalink as P

_TEXT = st.text(st.sampled_from(list("aZ09 -_./\\:<>|?*\"'()é漢　Ａ")), max_size=24)


@settings(max_examples=200, deadline=None)
@given(_TEXT, st.one_of(st.none(), _TEXT))
def test_memoised_permalink_equals_the_plain_one(path: str, project: str | None) -> None:
    plain = P._permalink.__wrapped__(path, project or None)
    for _ in range(2):  # a miss, then a hit
        assert P.generate_permalink(path, project) == plain
        assert P.generate_permalink(path + ".md", project) == P._permalink.__wrapped__(
            path + ".md", project or None
        )


def test_empty_project_is_no_project() -> None:
    assert P.generate_permalink("sessions/A B.md", "") == P.generate_permalink("sessions/A B.md")
    assert P.generate_permalink("sessions/A B.md", "demo") == "demo/sessions/a-b"


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_memoised_file_name_equals_the_plain_one(title: str) -> None:
    for _ in range(2):
        assert P.filename_for_title(title) == P._filename_for_title.__wrapped__(title)
