"""Deterministic corpora for the benchmarks (no randomness beyond a seeded RNG).

``aiwiki_v2_page(i)`` is a ~3 KB v2 session page shaped like the schema's own example:
checkpoints with a fenced manifest block, a consumed and an unconsumed directive,
citations, wiki links, a nested list and a table; ``aiwiki_v1_page(i)`` a v1 page;
``bm_session_note(i)`` a Basic Memory session note of similar size in the plugin's style.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

WORDS = [
    "parser",
    "schema",
    "lint",
    "cache",
    "index",
    "store",
    "writer",
    "reader",
    "adapter",
    "migration",
    "checkpoint",
    "directive",
    "citation",
    "frontmatter",
    "section",
    "heading",
    "fence",
    "commit",
    "session",
    "handoff",
    "budget",
    "layout",
    "backend",
    "retry",
    "lock",
    "atomic",
    "rename",
    "fsync",
    "bucket",
    "prefix",
    "listing",
    "batch",
]


def _rng(i: int) -> random.Random:
    return random.Random(1_000_003 * i + 17)


def _sentence(r: random.Random, n: int = 8) -> str:
    return " ".join(r.choice(WORDS) for _ in range(n)).capitalize()


def _sid(r: random.Random) -> str:
    h = "".join(r.choice("0123456789abcdef") for _ in range(32))
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _date(i: int) -> str:
    day = i % 28 + 1
    month = (i // 28) % 12 + 1
    year = 2024 + (i // 336) % 3
    return f"{year:04d}-{month:02d}-{day:02d}"


def _sha(r: random.Random) -> str:
    return "".join(r.choice("0123456789abcdef") for _ in range(7))


def aiwiki_v2_page(i: int) -> tuple[str, str]:
    """(filename, text) of the i-th v2 page."""
    r = _rng(i)
    sid = _sid(r)
    date = _date(i)
    lines = [
        "---",
        "schema_id: session",
        "schema_version: 2",
        "status: done",
        f"date_start: {date}",
        f"date_end: {date}",
        f"session_id: {sid}",
        f"focus: {_sentence(r, 6)}",
        f"last_commit: '{_sha(r)}'",
        "---",
        "",
        "## Checkpoints",
        "",
    ]
    for c in range(2):
        work = r.choice(WORDS)
        lines += [
            f"### PreCompact at {date}T{10 + c:02d}:{r.randrange(60):02d}:00Z",
            "",
            "Active work: feature/" + work,
            f"Manifest: .forge/work/feature/{work}/manifest.yaml",
            "",
            # the schema's own example checkpoint: the manifest's phases in a fenced block
            "Phase status (from manifest):",
            "```yaml",
            "status: in-progress",
            f"artifacts.prototype.locked_at: {date}T09:00:00Z",
            "artifacts.codify.locked_at: ~",
            "```",
            "",
        ]
        if c == 0:
            lines += ["**Dream directive (consumed at " + f"{date}T{12 + c:02d}:00:00Z):**"]
        else:  # the newest checkpoint's directive still waits, with the skeleton's Status line
            lines += ["**Dream directive (unconsumed):**"]
        lines += [
            "",
            "- Scope: `aiwiki/raw/`, recently-touched typed pages",
            "- Trigger: pre-compact, context ~85%",
            "- Action: invoke `support-dream` skill before resuming other work",
        ]
        if c == 1:
            lines.append("- Status: unconsumed")
        lines += ["", "---", ""]
    lines += ["## Files touched", ""]
    for _ in range(8):
        a = r.randrange(1, 400)
        lines.append(
            f"- `sessionkit/{r.choice(WORDS)}/{r.choice(WORDS)}.py:{a}-{a + r.randrange(1, 40)}"
            f"@{_sha(r)}` — {_sentence(r, 5).lower()}"
        )
    lines += ["", "## Decisions made", ""]
    lines += [f"- [[adr-{r.randrange(100):04d}]] {_sentence(r, 7).lower()}" for _ in range(4)]
    lines += ["", "## Gotchas surfaced", ""]
    lines += [f"- [[gotcha-{r.choice(WORDS)}]] {_sentence(r, 7).lower()}" for _ in range(3)]
    lines += ["", "## Open questions", ""]
    lines += [f"- {_sentence(r, 9)}?" for _ in range(2)]
    lines += ["", "## Next steps", ""]
    lines += [f"- {_sentence(r, 10)}" for _ in range(3)]
    # a nested list, a wiki link with an alias and a table, as hand edits leave them
    lines += [
        f"- Follow up [[{r.choice(WORDS)}-notes|the {r.choice(WORDS)} notes]]:",
        f"  - {_sentence(r, 5)}",
        f"  - {_sentence(r, 4)}",
        "",
        "| step | owner |",
        "|---|---|",
        f"| {r.choice(WORDS)} | {r.choice(WORDS)} |",
    ]
    return f"{date}-{sid[:7]}.md", "\n".join(lines) + "\n"


def aiwiki_v1_page(i: int) -> tuple[str, str]:
    """(filename, text) of the i-th v1 page (no session_id, no Checkpoints)."""
    r = _rng(i)
    date = _date(i)
    lines = [
        "---",
        "schema_id: session",
        "schema_version: 1",
        "status: done",
        f"date_start: {date}",
        f"focus: {_sentence(r, 6)}",
        "---",
        "",
        "## Files touched",
        "",
    ]
    for _ in range(8):
        lines.append(
            f"- `src/{r.choice(WORDS)}.py:{r.randrange(1, 400)}@{_sha(r)}` — "
            f"{_sentence(r, 5).lower()}"
        )
    lines += ["", "## Decisions made", ""]
    lines += [f"- [[adr-{r.randrange(100):04d}]] {_sentence(r, 7).lower()}" for _ in range(4)]
    lines += ["", "## Next steps", ""]
    lines += [f"- {_sentence(r, 10)}" for _ in range(6)]
    return f"{date}-v1{i:05d}.md", "\n".join(lines) + "\n"


def bm_session_note(i: int) -> tuple[str, str]:
    """(filename, text) of the i-th Basic Memory session note in the plugin's style."""
    r = _rng(i)
    date = _date(i)
    clock = f"{r.randrange(24):02d}:{r.randrange(60):02d}:{r.randrange(60):02d}"
    first = _sentence(r, 5).lower()
    title = f"Session {date} {clock} — {first}"
    stem = title.replace(":", "-")
    permalink = "bench/sessions/" + "-".join(
        "".join(ch if ch.isalnum() else " " for ch in stem.lower()).split()
    )
    lines = [
        "---",
        f"title: 'Session {date} {clock} — {first}'",
        "type: session",
        f"permalink: {permalink}",
        "status: open",
        f"started: '{date}T{clock}Z'",
        f"ended: '{date}T23:00:00Z'",
        "project: bench",
        f"cwd: /home/dev/{r.choice(WORDS)}",
        f"claude_session_id: {_sid(r)}",
        "trigger: auto",
        "capture: extractive",
        "tags:",
        "- session",
        "- auto-capture",
        "---",
        "",
        "## Summary",
        "",
        _sentence(r, 30) + ".",
        "",
        "## Recent thread",
        "",
    ]
    lines += [f"- {_sentence(r, 12)}" for _ in range(4)]
    lines += ["", "## Observations", ""]
    lines += [f"- [context] {_sentence(r, 9)} #{r.choice(WORDS)}" for _ in range(4)]
    lines += [f"- [next_step] {_sentence(r, 9)} (from {r.choice(WORDS)})" for _ in range(3)]
    lines += [f"- [decision] {_sentence(r, 9)}" for _ in range(3)]
    lines += [f"- [problem] {_sentence(r, 9)} #{r.choice(WORDS)}" for _ in range(2)]
    lines += ["", "## Relations", ""]
    lines += [f"- produced [[{_sentence(r, 3)}]]" for _ in range(3)]
    lines += [f"- relates_to [[{_sentence(r, 2)}]]" for _ in range(2)]
    return f"{stem}.md", "\n".join(lines) + "\n"


def write_corpus(root: Path, kind: str, n: int) -> list[Path]:
    """Write n pages of ``kind`` ("v2", "v1", "bm") under root; reuses an existing corpus."""
    make = {"v2": aiwiki_v2_page, "v1": aiwiki_v1_page, "bm": bm_session_note}[kind]
    folder = root / ("sessions" if kind == "bm" else "aiwiki/sessions")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        name, text = make(i)
        p = folder / name
        if not p.exists():
            p.write_text(text, encoding="utf-8")
        paths.append(p)
    return paths


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MB."""
    import resource

    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024 if os.uname().sysname != "Darwin" else kb / (1024 * 1024)


# -- the CLI benchmark's corpora ---------------------------------------------------------

#: the corpora of ``benchmarks/cli.py``
CLI_CORPORA = ("clean", "finding", "mix")


def aiwiki_long_page(i: int) -> tuple[str, str]:
    """(filename, text) of a long v2 page: 11 checkpoints, 24 citations (~190 lines)."""
    r = _rng(i)
    name, text = aiwiki_v2_page(i)
    head, sep, rest = text.partition("## Files touched\n")
    date = name[:10]
    extra = []
    for c in range(9):
        extra += [
            f"### PreCompact at {date}T{12 + c:02d}:{r.randrange(60):02d}:30Z",
            "",
            "Active work: feature/" + r.choice(WORDS),
            f"Manifest: .forge/work/feature/{r.choice(WORDS)}/manifest.yaml",
            "",
            _sentence(r, 14) + ".",
            "",
            "---",
            "",
        ]
    cites = []
    for _ in range(16):
        a = r.randrange(1, 400)
        cites.append(
            f"- `sessionkit/{r.choice(WORDS)}/{r.choice(WORDS)}.py:{a}@{_sha(r)}` — "
            f"{_sentence(r, 6).lower()}"
        )
    rest = rest.replace("\n\n## Decisions made", "\n" + "\n".join(cites) + "\n\n## Decisions made")
    return name, head + "\n".join(extra) + "\n" + sep + rest


def cli_page(kind: str, i: int) -> tuple[str, bytes]:
    """(filename, bytes) of page ``i`` of a CLI benchmark corpus (see :data:`CLI_CORPORA`).

    ``clean``: v2 pages that lint clean; ``finding``: the same, each with one
    citation without ``@sha7`` (one AW warning a page); ``mix``: 55% v2, 15%
    v1, 10% CRLF v2, 10% v2 with a BOM, 5% long v2 pages, 5% the example wiki's
    pages verbatim (and the wiki's own schema page: :func:`write_cli_corpus`).
    Every v2 page has the schema's example checkpoint shape: a fenced manifest
    block, a consumed and an unconsumed directive, a nested list, a wiki link
    with an alias and a table.
    """
    if kind == "finding":
        name, text = aiwiki_v2_page(i)
        at = text.index("## Files touched")
        sha = text.index("@", at)
        return name, (text[:sha] + text[sha + 8 :]).encode()
    if kind == "clean":
        name, text = aiwiki_v2_page(i)
        return name, text.encode()
    slot = i % 20
    if slot == 19 and EXAMPLE_PAGES:  # the bundled example pages, verbatim, each copy in a
        page = EXAMPLE_PAGES[(i // 20) % len(EXAMPLE_PAGES)]  # folder of its own
        return f"x{i:06d}/{page.name}", page.read_bytes()
    if slot < 11:
        name, text = aiwiki_v2_page(i)
        return name, text.encode()
    if slot < 14:
        name, text = aiwiki_v1_page(i)
        return name, text.encode()
    if slot < 16:
        name, text = aiwiki_v2_page(i)
        return name, text.replace("\n", "\r\n").encode()
    if slot < 18:
        name, text = aiwiki_v2_page(i)
        return name, b"\xef\xbb\xbf" + text.encode()
    name, text = aiwiki_long_page(i)
    return name, text.encode()


#: the example wiki's session pages (fenced manifests, consumed and unconsumed directives,
#: citations, wiki links, v1 pages), which the mix corpus carries verbatim
EXAMPLE_PAGES = sorted(
    (Path(__file__).resolve().parents[1] / "examples" / "wiki" / "aiwiki" / "sessions").glob(
        "20*.md"
    )
)


#: the schema page sessionkit ships for v2, which is the aiwiki plugin's own page
SHIPPED_SCHEMA_PAGE = (
    Path(__file__)
    .resolve()
    .parents[1]
    .joinpath("sessionkit", "adapters", "schemas", "aiwiki-session-v2.md")
)


def _write_schema_page(root: Path) -> None:
    """The wiki's own schema page (``aiwiki/schemas/session.md``), a copy of the shipped one,
    as a wiki set up by the aiwiki plugin carries it."""
    page = root / "aiwiki" / "schemas" / "session.md"
    if not page.exists():
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_bytes(SHIPPED_SCHEMA_PAGE.read_bytes())


def write_cli_corpus(root: Path, kind: str, n: int) -> Path:
    """A wiki of ``n`` pages of ``kind`` at ``root`` (a git repository); reuses a complete one.

    The ``mix`` wiki also has its own schema page (a copy of the shipped v2 page).

    Returns the sessions folder.
    """
    folder = root / "aiwiki" / "sessions"
    if kind == "mix":  # (before the check below: corpora cached before it was added get it)
        _write_schema_page(root)
    done = root / ".complete"
    if done.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    (root / ".git").mkdir(exist_ok=True)
    for i in range(n):
        name, data = cli_page(kind, i)
        if "/" in name:
            (folder / name).parent.mkdir(exist_ok=True)
        with open(folder / name, "wb") as fh:
            fh.write(data)
    done.write_text(f"{n}\n")
    return folder
