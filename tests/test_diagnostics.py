"""Lint findings as values: equality, pickling (``lint --jobs N`` sends them between
processes), frozenness."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sessionkit.diagnostics import Diagnostic, Severity


@given(
    code=st.text(max_size=8),
    severity=st.sampled_from(list(Severity)),
    line=st.one_of(st.none(), st.integers(min_value=0)),
    message=st.text(),
    path=st.one_of(st.none(), st.text()),
    fixable=st.booleans(),
)
def test_a_finding_survives_pickling(
    code: str, severity: Severity, line: int | None, message: str, path: str | None, fixable: bool
) -> None:
    found = Diagnostic(
        code=code, severity=severity, line=line, message=message, path=path, fixable=fixable
    )
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(found, protocol=protocol))
        assert back == found and type(back) is Diagnostic
        assert back.severity is severity  # the member itself, not an equal string
        assert str(back) == str(found) and back.to_dict() == found.to_dict()
        with pytest.raises(AttributeError):
            back.line = 1  # type: ignore[misc]
