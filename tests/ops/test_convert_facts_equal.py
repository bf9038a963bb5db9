"""The conversion's check finds the same facts exactly when their JSON texts are the same.

Before a converted note is written, the check reads it back and compares its
facts with the source's, by their JSON texts.  Values Python calls equal but
JSON writes apart (``1``, ``1.0`` and ``True``; ``0.0`` and ``-0.0``; keys in
another order) must be told apart.

A correct writer never turns one such value into another, so these tests
make Basic Memory's writer lossy: its public ``dump_yaml`` writes another
value for one frontmatter key.  An aiwiki page holding the first value in a
key the note carries (an unknown aiwiki key, or a ``bm_`` key) is converted;
the check must see the change, and the session then travels whole, exactly
when the two values' JSON texts differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionkit.adapters.basic_memory import write as basic_memory
from sessionkit.adapters.crosswalk import Converted, convert_doc
from sessionkit.document import parse
from sessionkit.errors import SessionKitError

_SMALL = st.sampled_from([None, 0, 1, True, False, 1.0, 0.0, -0.0, "1", "a", [], {}])
#: values YAML holds (no tuples), nested
_VALUES = st.recursive(
    _SMALL,
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)
    ),
    max_leaves=4,
)


@st.composite
def _alike(draw: st.DrawFn, value: Any) -> Any:
    """A value Python calls equal to ``value``: numbers as another type, -0.0 for 0,
    dict keys in another order, the same inside lists and dicts."""
    if isinstance(value, list):
        return [draw(_alike(v)) for v in value]
    if isinstance(value, dict):
        items = [(k, draw(_alike(v))) for k, v in value.items()]
        return dict(reversed(items) if draw(st.booleans()) else items)
    if isinstance(value, (bool, int, float)) and float(value).is_integer():
        forms: list[Any] = [int(value), float(value)]
        if value in (0, 1):
            forms.append(bool(value))
        if value == 0:
            forms.append(-0.0)
        return draw(st.sampled_from(forms))
    return value


#: pairs of values: mostly Python-equal ones (JSON may write them apart), some any two
_PAIRS = st.one_of(
    _VALUES.flatmap(lambda x: st.tuples(st.just(x), _alike(x))),
    st.tuples(_VALUES, _VALUES),
)
#: an aiwiki key and the Basic Memory frontmatter key that carries it
_CARRIED = {"extra_key": "aiwiki_extra_key", "bm_k": "k"}
_PATH = "aiwiki/sessions/2024-01-01-abcdef0.md"
_PAGE = (
    "---\nschema_id: session\nschema_version: 2\nstatus: done\ndate_start: 2024-01-01\n"
    "focus: Work\n{line}\n---\n\n## Next steps\n\n- Ship it\n"
)


@contextmanager
def _lossy_writer(key: str, value: Any) -> Iterator[None]:
    """Basic Memory's writer writing ``value`` for frontmatter key ``key``."""
    real = basic_memory.dump_yaml

    def lossy(data: Any) -> str:
        if key in data:
            data = {**data, key: value}
        return real(data)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(basic_memory, "dump_yaml", lossy)
        yield


def _convert(text: str) -> Converted:
    return convert_doc(
        parse(text, _PATH), "aiwiki", "basic-memory", project="demo", folder="sessions", today="x"
    )


def _lossy_convert(text: str, key: str, y: Any) -> Converted:
    """The page converted with the writer writing ``y`` for the carried ``key``."""
    with _lossy_writer(_CARRIED[key], y):
        return _convert(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PAIRS, st.sampled_from(sorted(_CARRIED)))
def test_values_python_calls_equal_are_decided_by_the_texts(
    pair: tuple[Any, Any], key: str
) -> None:
    x, y = pair
    text = _PAGE.format(line=f"{key}: {json.dumps(x)}")
    try:
        if _convert(text).carried:
            return  # the session travels whole anyway
    except SessionKitError:
        return
    assert _lossy_convert(text, key, y).carried == (json.dumps(x) != json.dumps(y)), (x, y)


@pytest.mark.parametrize("key", sorted(_CARRIED))
@pytest.mark.parametrize(
    ("x", "y"),
    [
        (1.0, 1),
        (True, 1),
        (1, True),
        (0, False),
        (-0.0, 0.0),
        ({"b": 1, "a": 2}, {"a": 2, "b": 1}),
        ([1.0], [1]),
        ({"a": [True]}, {"a": [1]}),
    ],
)
def test_values_python_calls_equal_are_told_apart(x: Any, y: Any, key: str) -> None:
    assert x == y and json.dumps(x) != json.dumps(y)
    text = _PAGE.format(line=f"{key}: {json.dumps(x)}")
    assert not _convert(text).carried
    assert _lossy_convert(text, key, y).carried
