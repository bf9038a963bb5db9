"""sessionkit.context.Context is a value: immutable, compared by its fields, picklable."""

from __future__ import annotations

import pickle

import pytest

from sessionkit.context import Context


def _ctx(**changes: object) -> Context:
    fields: dict[str, object] = {
        "text": "Session 2026-05-18-7e8a3f2",
        "key": "2026-05-18-7e8a3f2.md",
        "source": "startup",
        "budget": 9000,
        "unit": "chars",
        "size": 26,
        "unconsumed": 0,
        "shown": 0,
    }
    fields.update(changes)
    return Context(**fields)  # type: ignore[arg-type]


def test_a_context_cannot_be_changed_in_place() -> None:
    ctx = _ctx()
    with pytest.raises(AttributeError):
        ctx.text = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del ctx.key
    assert ctx.text == "Session 2026-05-18-7e8a3f2"


def test_replace_makes_a_changed_copy() -> None:
    ctx = _ctx(left_out={"directives": 2})
    other = ctx.replace(size=30)
    assert other.size == 30 and ctx.size == 26
    assert other.left_out == {"directives": 2} and other != ctx
    assert ctx.replace() == ctx


def test_equal_by_fields_and_picklable() -> None:
    ctx = _ctx(left_out={"next_steps": 1}, left_out_size=12, rest="sessionkit context")
    assert ctx == _ctx(left_out={"next_steps": 1}, left_out_size=12, rest="sessionkit context")
    assert ctx != _ctx(left_out={"next_steps": 1}, left_out_size=13, rest="sessionkit context")
    assert pickle.loads(pickle.dumps(ctx)) == ctx
    assert not ctx.complete and _ctx().complete
    with pytest.raises(TypeError):
        hash(ctx)  # (it holds a dict, as the attrs class did)
