"""check_key's control-character search equals the per-character ``ord(c) < 32`` test."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sessionkit.backends import check_key
from sessionkit.errors import PathSafetyError
from tests.budget import examples

#: the longest part a key may have, in UTF-8 bytes (docs/remote.md: a file name's limit)
MAX_NAME = 255
#: Windows' reserved device names, with any extension, in any case
WINDOWS_RESERVED = re.compile(r"^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\..*)?$", re.IGNORECASE)


def _reference(key: str) -> str | None:
    """check_key as it was written before (``any(ord(c) < 32 ...)``): the problem or ``None``."""
    if not key or key.strip() != key:
        return "is empty or has surrounding white space"
    if "\x00" in key:
        return "contains a NUL byte"
    if "\\" in key:
        return "contains a backslash"
    if key.startswith("/") or re.match(r"^[A-Za-z]:", key) or "://" in key:
        return "is absolute"
    for part in key.split("/"):
        if part in ("", ".", ".."):
            return "has an empty, '.' or '..' part"
        if len(part.encode("utf-8")) > MAX_NAME:
            return f"has a part longer than {MAX_NAME} bytes"
        if WINDOWS_RESERVED.match(part):
            return f"uses the reserved name {part!r}"
        if any(ord(c) < 32 for c in part):
            return "contains a control character"
    return None


_chars = st.one_of(
    st.characters(max_codepoint=0x40, blacklist_categories=("Cs",)),
    st.sampled_from(["a", "/", ".", "\x1f", "\x7f", "\x85", "\u2028", " ", "é", "\t"]),
    st.characters(blacklist_categories=("Cs",)),
)


@settings(max_examples=examples(600), deadline=None)
@given(st.text(_chars, max_size=40))
@example("a\x1fb.md")
@example("a/b\x01/c.md")
@example("a\x7f.md")
@example("ok/name.md")
def test_check_key_equals_per_character_test(key: str) -> None:
    want = _reference(key)
    if want is None:
        assert check_key(key) == key
    else:
        with pytest.raises(PathSafetyError) as info:
            check_key(key)
        assert str(info.value) == f"refused key {key!r}: it {want}"


@pytest.mark.parametrize("code", range(1, 0x100))
def test_control_characters_are_exactly_those_below_32(code: int) -> None:
    key = f"a/b{chr(code)}c.md"
    if code < 32:
        with pytest.raises(PathSafetyError, match="contains a control character"):
            check_key(key)
    elif chr(code) not in "/\\":
        assert check_key(key) == key


@pytest.mark.parametrize("size", [MAX_NAME, MAX_NAME + 1])
def test_the_part_length_limit(size: int) -> None:
    key = "a/" + "x" * (size - 3) + ".md"
    if size > MAX_NAME:
        with pytest.raises(PathSafetyError, match=f"longer than {MAX_NAME} bytes"):
            check_key(key)
    else:
        assert check_key(key) == key
