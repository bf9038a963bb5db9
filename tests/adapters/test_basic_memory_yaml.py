"""dump_yaml writes PyYAML's safe-dump text, as Basic Memory's ``write_note`` does,
and keeps a NEL character readable."""

from __future__ import annotations

import yaml

from sessionkit.adapters.basic_memory import dump_yaml
from sessionkit.document import parse


def test_nel_reads_back() -> None:
    data = {"focus": "a\x85b", "tags": ["x\x85"], "k\x85": 1}
    text = dump_yaml(data)
    assert '"a\\Nb"' in text
    assert dict(parse(f"---\n{text}---\n").meta) == data


def test_dump_yaml_is_pyyaml() -> None:
    shared = ["a", "yes"]
    data = {
        "title": "Session 2026-05-18 \u2014 x",
        "tags": shared,
        "also": shared,
        "n": None,
        "k": 1.5,
        "long": "word " * 40,
        "d": {"a": 1},
    }
    assert dump_yaml(data) == yaml.dump(
        data, Dumper=yaml.SafeDumper, sort_keys=False, allow_unicode=True, default_flow_style=False
    )
