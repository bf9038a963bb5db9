"""The conversion check compares pivots by value first, and agrees with their JSON texts.

:func:`_same_facts` says two pivots hold the same facts without making their
JSON texts (:meth:`_Pivot.key`) when every value has the same type and value.
Values Python calls equal but JSON writes apart (``1``, ``1.0`` and
``True``; ``0.0`` and ``-0.0``; keys in another order), and a tuple and a
list, must still be decided by the texts.  Each test asserts that the answer
is the texts' answer.
"""

from __future__ import annotations

from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from sessionkit.adapters import crosswalk as C
from sessionkit.model import Citation, Session
from sessionkit.serialize import from_dict, to_dict
from tests import strategies as S

_SMALL = st.sampled_from([None, 0, 1, True, False, 1.0, 0.0, -0.0, "1", "a", (), [], {}])
_VALUES = st.recursive(
    _SMALL,
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.lists(inner, max_size=2).map(tuple)
        | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)
    ),
    max_leaves=4,
)


def _agrees(a: C._Pivot, b: C._Pivot) -> None:
    assert C._same_facts(a, b, []) == (a.key() == b.key())
    want = [b.key()]
    assert C._same_facts(a, b, want) == (a.key() == want[0])


@settings(max_examples=150, deadline=None)
@given(S.sessions(extra=st.just({})), S.extras(), S.extras())
def test_a_copy_holds_the_same_facts(
    session: Session, aw: dict[str, Any], bm: dict[str, Any]
) -> None:
    a = C._Pivot(session=session, aw_extra=aw, bm_extra=bm)
    copy = from_dict(to_dict(session))  # equal values, other objects
    b = C._Pivot(session=copy, aw_extra=dict(aw), bm_extra=dict(bm))
    assert C._strict_same(a, b)
    _agrees(a, b)


@settings(max_examples=400, deadline=None)
@given(_VALUES, _VALUES, st.sampled_from(["aw_extra", "bm_extra", "bm_status", "session"]))
def test_values_python_calls_equal_are_decided_by_the_texts(x: Any, y: Any, where: str) -> None:
    def pivot(value: Any) -> C._Pivot:
        if where == "session":
            return C._Pivot(session=Session(extra={"k": value}))
        if where == "bm_status":
            return C._Pivot(session=Session(), bm_status=value)
        return C._Pivot(session=Session(), **{where: {"k": value}})

    _agrees(pivot(x), pivot(y))


def _raw(obj: Any, **values: Any) -> Any:
    """``obj`` with ``values`` set past the model's converters (which refuse or normalise them).

    The model checks its values since #19, so these can only come from code
    that goes around it; the conversion check must still decide them right.
    """
    out = attrs.evolve(obj)
    for name, value in values.items():
        object.__setattr__(out, name, value)
    return out


def test_model_values_python_calls_equal() -> None:
    cite = Citation(path="a.py", start=1)
    pairs = [
        (Citation(path="a.py", start=1), _raw(cite, start=True)),
        (Citation(path="a.py", start=1), _raw(cite, start=1.0)),
        (Session(decisions=("x",)), _raw(Session(), decisions=["x"])),
        (Session(extra={"a": 1, "b": 2}), Session(extra={"b": 2, "a": 1})),
    ]
    for x, y in pairs:
        sx = x if isinstance(x, Session) else Session(files_touched=(x,))
        sy = y if isinstance(y, Session) else Session(files_touched=(y,))
        _agrees(C._Pivot(session=sx), C._Pivot(session=sy))
    assert not C._strict_same(
        C._Pivot(session=Session(files_touched=(cite,))),
        C._Pivot(session=Session(files_touched=(_raw(cite, start=True),))),
    )
