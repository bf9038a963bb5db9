"""Hostile inputs for every reader, generated at test time (nothing big is committed).

Each case is ``(name, bytes)``.  :func:`cases` builds them all; ``python -m
tests.hostile.cases DIR`` writes them to ``DIR`` (the fuzz session seeds its
corpus from there).  The big ones (a 20 MB line, 100,000 headings) are made
only when ``big=True``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["BIG", "cases", "names"]

V2_HEAD = (
    "---\nschema_id: session\nschema_version: 2\nstatus: active\ndate_start: 2026-05-18\n"
    "session_id: 7e8a3f2-9a4b-4c8d-b1e2-f5a6c7d8e9f0\nfocus: hostile\nlast_commit: ~\n---\n"
)
V2_BODY = (
    "\n## Checkpoints\n\n### PreCompact at 2026-05-18T14:23:00Z\n\nwork\n\n"
    "**Dream directive (unconsumed):**\n- Action: dream\n- Status: unconsumed\n\n"
    "## Files touched\n\n- `a.py:1@abc1234` — x\n\n## Next steps\n\n- go\n"
)
BM_HEAD = (
    "---\ntitle: Session 2026-05-18 14:23:00 — hostile\ntype: session\n"
    "permalink: demo/sessions/session-2026-05-18-14-23-00-hostile\nstatus: open\n"
    "tags:\n- session\n---\n"
)


def _alias_bomb(levels: int = 9, width: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        refs = ", ".join(f"*a{i - 1}" for _ in range(width))
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "---\n" + "\n".join(lines) + "\n---\n\nbody\n"


def _flow_nesting(depth: int) -> str:
    return "---\nx: " + "[" * depth + "]" * depth + "\n---\n"


def _block_nesting(depth: int) -> str:
    lines = [" " * i + f"k{i}:" for i in range(depth)]
    lines[-1] += " end"
    return "---\n" + "\n".join(lines) + "\n---\n"


def _block_seq_nesting(depth: int) -> str:
    return "---\nx:\n" + "".join("  " * i + "-\n" for i in range(depth)) + "---\n"


def _small() -> dict[str, Callable[[], str | bytes]]:
    return {
        "alias-bomb": _alias_bomb,
        "alias-bomb-mapping": lambda: (
            "---\na: &a {x: 1, y: 1}\n"
            + "".join(
                f"b{i}: &b{i} {{p: *{'a' if i == 0 else f'b{i - 1}'}, q: *"
                f"{'a' if i == 0 else f'b{i - 1}'}}}\n"
                for i in range(30)
            )
            + "---\n"
        ),
        "alias-many": lambda: (
            "---\nbase: &b x\n" + "".join(f"k{i}: *b\n" for i in range(500)) + "---\n"
        ),
        "alias-undefined": lambda: "---\na: *nope\n---\n",
        "recursive-alias": lambda: "---\na: &a [*a]\n---\n",
        "merge-key": lambda: "---\nbase: &b {x: 1}\nchild:\n  <<: *b\n  y: 2\n---\n",
        "deep-flow-100": lambda: _flow_nesting(100),
        "deep-flow-10000": lambda: _flow_nesting(10_000),
        "deep-flow-mapping": lambda: "---\nx: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n---\n",
        "deep-block-200": lambda: _block_nesting(200),
        "deep-block-seq-500": lambda: _block_seq_nesting(500),
        "tag-python-object": lambda: (
            "---\nx: !!python/object/apply:os.system ['echo pwned']\n---\n"
        ),
        "tag-python-name": lambda: "---\nx: !!python/name:os.system\n---\n",
        "tag-custom": lambda: "---\nx: !secret value\n---\n",
        "tag-binary": lambda: "---\nx: !!binary aGVsbG8=\n---\n",
        "tag-set": lambda: "---\nx: !!set {a, b}\n---\n",
        "tag-timestamp": lambda: "---\nx: !!timestamp 2026-05-18\n---\n",
        # found by fuzz/fuzz_loads.py: PyYAML's own timestamp constructor crashed on it
        "tag-timestamp-bad": lambda: "---\nx: !!timestamp 2`026-05-18\n---\n",
        "tag-int-bad": lambda: "---\nx: !!int abc\n---\n",
        # found by fuzz/fuzz_loads.py: PyYAML's float constructor crashed on an empty value
        "tag-float-empty": lambda: "---\nstatus: done\n!!float : a\n---\n",
        "tag-float-bad": lambda: "---\nx: !!float abc\n---\n",
        "tag-omap": lambda: "---\nx: !!omap [{a: 1}]\n---\n",
        "tag-float-on-key": lambda: "---\n!!float 1: a\n---\n",
        "tag-str-on-schema": lambda: "---\nschema_version: !!str 2\nschema_id: session\n---\n",
        "duplicate-keys": lambda: "---\nstatus: active\nstatus: done\n---\n",
        "duplicate-keys-nested": lambda: "---\na:\n  b: 1\n  b: 2\n---\n",
        "complex-key": lambda: "---\n? [a, b]\n: c\n---\n",
        "non-string-key": lambda: "---\n1: a\ntrue: b\n~: c\n---\n",
        "invalid-utf8-body": lambda: V2_HEAD.encode() + b"\n## Next steps\n\n- \xff\xfe bad\n",
        "invalid-utf8-frontmatter": lambda: b"---\nfocus: caf\xe9\n---\n",
        "truncated-utf8": lambda: V2_HEAD.encode() + "\n- é".encode()[:-1],
        "utf16-bom": lambda: "\ufeff---\nschema_id: session\n---\n".encode("utf-16"),
        "nul-frontmatter": lambda: "---\nschema_id: sess\x00ion\nschema_version: 2\n---\n",
        "nul-frontmatter-key": lambda: "---\n\x00: 1\n---\n",
        "nul-body": lambda: V2_HEAD + "\n## Next steps\n\n- a\x00b\n" + "\x00" * 100,
        "nul-only": lambda: "\x00" * 1000,
        "control-chars": lambda: V2_HEAD + "".join(chr(c) for c in range(32)) + "\x7f\x85",
        "unicode-separators": lambda: V2_HEAD + "\n## Next\u2028steps\u2029\n\n- \u0085x\n",
        "lone-surrogate-escape": lambda: '---\nfocus: "\\ud800"\n---\n',
        "unclosed-frontmatter": lambda: "---\nschema_id: session\nschema_version: 2\n",
        "unclosed-frontmatter-only-fence": lambda: "---",
        "unclosed-code-fence": lambda: V2_HEAD + "\n## Next steps\n\n```python\n## not a heading\n",
        "unclosed-tilde-fence": lambda: V2_HEAD + "\n~~~~\n" + "## x\n" * 50,
        "unclosed-html": lambda: V2_HEAD + "\n<!--\n## hidden\n",
        "mixed-crlf-lf": lambda: (
            V2_HEAD.replace("\n", "\r\n", 3) + V2_BODY.replace("\n", "\r\n", 7)
        ),
        "cr-only": lambda: (V2_HEAD + V2_BODY).replace("\n", "\r"),
        "crlf-everywhere": lambda: (V2_HEAD + V2_BODY).replace("\n", "\r\n"),
        "frontmatter-list": lambda: "---\n- a\n- b\n---\n\nbody\n",
        "frontmatter-scalar": lambda: "---\njust a string\n---\n",
        "frontmatter-number": lambda: "---\n42\n---\n",
        "frontmatter-multi-doc": lambda: "---\na: 1\n...\n---\nb: 2\n---\n",
        "frontmatter-directive": lambda: "---\n%YAML 1.1\n---\n",
        "frontmatter-empty": lambda: "---\n---\n",
        "bad-yaml-indent": lambda: "---\na: b\n  c: d\n e\n---\n",
        "bad-yaml-tab": lambda: "---\na:\t\tb\n\tc: d\n---\n",
        "empty": lambda: "",
        "only-bom": lambda: "\ufeff",
        "bom-twice": lambda: "\ufeff\ufeff" + V2_HEAD,
        "v2-wrong-types": lambda: (
            "---\nschema_id: [session]\nschema_version: {a: 1}\nstatus: [1]\n"
            "date_start: 12\nsession_id: [x]\nfocus: {a: b}\nlast_commit: 3.5\n---\n" + V2_BODY
        ),
        "v2-huge-version": lambda: (
            "---\nschema_id: session\nschema_version: " + "9" * 5000 + "\n---\n"
        ),
        "v2-negative-version": lambda: "---\nschema_id: session\nschema_version: -1\n---\n",
        "v2-float-version": lambda: "---\nschema_id: session\nschema_version: 2.0\n---\n",
        "v2-huge-float": lambda: (
            "---\nschema_id: session\nfocus: 1" + "0" * 400 + ".5e99999\n---\n"
        ),
        "v2-bad-dates": lambda: (
            V2_HEAD.replace("2026-05-18", "2026-13-45")
            + "\n## Checkpoints\n\n### PreCompact at 9999-99-99T99:99:99Z\n\nx\n"
        ),
        "v2-checkpoint-no-time": lambda: V2_HEAD + "\n## Checkpoints\n\n### PreCompact at\n\n###\n",
        "v2-directive-garbage": lambda: (
            V2_HEAD + "\n## Checkpoints\n\n### PreCompact at 2026-05-18T14:23:00Z\n\n"
            "**Dream directive (consumed at ):**\n**Dream directive (what):**\n- Status:\n"
            "**Dream directive (consumed at 2026-99-99T00:00:00Z):**\n"
        ),
        "v2-citations-garbage": lambda: (
            V2_HEAD
            + "\n## Files touched\n\n- `:@` — \n- `a.py:99999999999999999999@zzzzzzz`\n- ``\n- `\n"
        ),
        "v2-all-sections-twice": lambda: V2_HEAD + V2_BODY + V2_BODY,
        "v1-shaped": lambda: (
            "---\nschema_id: session\nschema_version: 1\nstatus: done\n"
            "date_start: 2026-01-05\nfocus: old\n---\n\n## Files touched\n\n- `a.py:1`\n"
        ),
        "bm-shaped-garbage": lambda: (
            BM_HEAD
            + "\n## Observations\n\n- [] \n- [[[x]]] a\n- [a] (\n- [b] )\n- #\n- [[\n- rel [[]]\n"
            "- [c] ((((((((((x))))))))))\n- [" + "a" * 10000 + "] b\n"
        ),
        "bm-tags-weird": lambda: "---\ntitle: x\ntype: session\ntags: '[\"a\", 1, null'\n---\n",
        "bm-title-hostile": lambda: "---\ntitle: ../../etc/passwd\ntype: session\n---\n",
        "bm-tags-mapping": lambda: "---\ntitle: x\ntype: session\ntags: {a: b}\n---\n",
        "bm-schema-inline": lambda: "---\ntitle: x\ntype: session\nschema: {a: [b]}\n---\n",
        "bm-schema-bad": lambda: (
            "---\ntitle: s\ntype: schema\nentity: session\nschema: "
            "{'x?(enum': [1, {a: b}], y(array: Foo, z(object): {w: [1]}}\n"
            "settings: {validation: maybe}\n---\n"
        ),
        "binary-random": lambda: bytes((i * 7919 + 13) % 256 for i in range(4096)),
        "binary-png-ish": lambda: b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8,
        "binary-gzip-ish": lambda: b"\x1f\x8b\x08\x00" + bytes(1000),
        "long-key": lambda: "---\n" + "k" * 100_000 + ": v\n---\n",
        "long-heading": lambda: V2_HEAD + "\n## " + "x" * 200_000 + "\n",
        "many-backticks": lambda: V2_HEAD + "\n" + "`" * 100_000 + "\n",
        "many-brackets-body": lambda: BM_HEAD + "\n- [" * 20_000 + "\n",
        "regex-stress-observation": lambda: (
            BM_HEAD + "\n- [a] " + "(" * 20_000 + "\n- [b] " + "#a" * 20_000 + "\n"
        ),
        "regex-stress-relations": lambda: BM_HEAD + "\n" + "[[" * 20_000 + "]]" * 19_999 + "\n",
        "regex-stress-citation": lambda: (
            V2_HEAD + "\n## Files touched\n\n- `" + "a:" * 20_000 + "1@\n"
        ),
    }


def _big() -> dict[str, Callable[[], str | bytes]]:
    return {
        "line-20mb": lambda: V2_HEAD + "\n" + "x" * (20 * 1024 * 1024) + "\n",
        "line-20mb-frontmatter": lambda: "---\nfocus: " + "y" * (20 * 1024 * 1024) + "\n---\n",
        "headings-100k": lambda: V2_HEAD + "\n" + "".join(f"## h{i}\n" for i in range(100_000)),
        "observations-50k": lambda: (
            BM_HEAD
            + "\n## Observations\n\n"
            + "".join(f"- [c{i % 50}] observation {i} #t{i % 7} (ctx {i})\n" for i in range(50_000))
        ),
    }


BIG = frozenset(_big())


def names(*, big: bool = True) -> list[str]:
    """Names of every case (the big ones included unless ``big`` is false)."""
    return [*_small(), *(_big() if big else {})]


def build(name: str) -> bytes:
    """The bytes of one case."""
    table = {**_small(), **_big()}
    value = table[name]()
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")


def cases(*, big: bool = True) -> Iterator[tuple[str, bytes]]:
    """Every case as ``(name, bytes)``."""
    for name in names(big=big):
        yield name, build(name)


if __name__ == "__main__":  # pragma: no cover - used by the fuzz session
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, data in cases(big="--big" in sys.argv):
        (out / name).write_bytes(data)
