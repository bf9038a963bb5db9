"""Benchmark: peak memory and CPU time of the CLI on one big note (issue #23).

Writes, into a temporary folder, single-note wikis and Basic Memory projects
whose one note is big (default: 1,000,000 lines, ~4 MB):

* ``next-steps``: an aiwiki session page whose ``## Next steps`` is N bullets
  of 4 bytes (``- 7``);
* ``files-touched``: the same in ``## Files touched``;
* ``citations``: ``## Files touched`` of N // 5 ``path:line@sha7`` citations
  (~20 bytes each);
* ``bm-observations``: a Basic Memory session note of N // 4 observations of
  16 bytes (``- [next_step] 7``)
  (for Basic Memory -> aiwiki);
* ``prose``: a ``## Summary`` of N // 20 lines of prose (~80 bytes, a distinct
  number in each);
* ``distinct``: ``## Next steps`` of N // 4 distinct bullets (``- step 7``);
* ``crlf``: the same with CRLF line ends (its model does not render the note's
  own text again: the word check counts its words);
* ``two-notes``: two pages of the ``next-steps`` case, converted in one run;
* ``emoji``: the ``next-steps`` page with U+1F680 in its focus (the whole text
  read is then 4 bytes a character in memory; the renderings hold their
  frontmatter and body apart);
* ``emoji-body``: the ``next-steps`` page with U+1F680 in one bullet (the page
  read is then 4 bytes a character; the renderings hold their body in pieces,
  only the piece of that bullet's line wide);
* ``token``: the ``emoji`` page with one bullet holding words the secret check
  looks at (``rotate the auth token``: the check reads the note through);
* ``checkpoints``: ``## Checkpoints`` of N // 40 checkpoints (~140 bytes each);
* ``open-questions``: the same N // 40 checkpoint-shaped blocks, pasted by hand
  under ``## Open questions`` (not a checkpoint log: the section's layout rides
  in the Basic Memory note's carrier);
* ``paragraphs``: ``## Open questions`` of N * 3 // 10 one-line paragraphs
  (``para N`` and a blank line: a pasted log, every line a block of its own).

Each case runs the real CLI in a child process under ``/usr/bin/time -v``
(``sessionkit convert SRC OUT --to ... --jobs 1``, ``sessionkit lint SRC``,
``sessionkit show NOTE --json``) and prints its peak resident set size
("Maximum resident set size") and its user + system CPU time. A baseline line
gives the same figures for ``python -c "open(f).read()"`` on the note.

    python benchmarks/bignote.py                  # 1,000,000 lines
    python benchmarks/bignote.py --lines 200000 --cases next-steps
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HEAD_WIKI = """---
schema_id: session
schema_version: 2
status: done
date_start: 2026-05-18
date_end: 2026-05-18
session_id: 7e8a3f2-9a4b-4c8d-b1e2-f5a6c7d8e9f0
focus: a big note
last_commit: '1234abc'
---

## Checkpoints

### PreCompact at 2026-05-18T14:23:00Z

Active work: feature/big

---

"""


def wiki_page(section: str, lines: int, citations: bool) -> str:
    """An aiwiki v2 page whose ``section`` holds ``lines`` bullets (or citations)."""
    if citations:
        body = "".join(
            f"- `m{i % 10}.py:{i % 9 + 1}@{i * 2654435761 % 0xFFFFFFF:07x}`\n" for i in range(lines)
        )
    else:
        body = "".join(f"- {i % 10}\n" for i in range(lines))
    parts = []
    for name in (
        "Files touched",
        "Decisions made",
        "Gotchas surfaced",
        "Open questions",
        "Next steps",
    ):
        parts.append(f"## {name}\n\n" + (body if name == section else "(filled by /wrap)\n"))
    return HEAD_WIKI + "\n".join(parts)


def bm_note(lines: int) -> str:
    """A Basic Memory session note with ``lines`` short observations."""
    head = (
        "---\ntitle: Session big\ntype: session\npermalink: bench/sessions/session-big\n"
        "status: open\nstarted: '2026-05-18T10:00:00Z'\nproject: bench\ntags:\n- session\n---\n\n"
        "## Summary\n\nA big note.\n\n## Observations\n\n"
    )
    return head + "".join(f"- [next_step] {i % 10}\n" for i in range(lines))


_WORDS = [
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
]


def prose_page(lines: int) -> str:
    """An aiwiki page whose ``## Summary`` is ``lines`` lines of prose (~80 bytes, in
    paragraphs of six lines, a distinct number in each line)."""
    out = []
    for i in range(lines):
        words = (_WORDS[(i + k) % len(_WORDS)] for k in range(12))
        out.append(f"{i} " + " ".join(words) + "\n" + ("\n" if i % 6 == 5 else ""))
    return wiki_page("Next steps", 0, False).replace(
        "---\n\n## Files touched", "---\n\n## Summary\n\n" + "".join(out) + "\n## Files touched"
    )


def distinct_page(lines: int, newline: str = "\n") -> str:
    """An aiwiki page whose ``## Next steps`` is ``lines`` distinct bullets (``- step N``)."""
    text = wiki_page("Next steps", 0, False) + "".join(f"- step {i}\n" for i in range(lines))
    return text.replace("\n", newline)


def checkpoints_page(count: int, section: str = "Files touched") -> str:
    """An aiwiki page whose ``## Checkpoints`` holds ``count`` more checkpoints, each
    with active work and an unconsumed directive (~140 bytes); or, with ``section="Next
    steps"``, the same blocks at the end of ``## Open questions``."""
    log = "".join(
        f"### PreCompact at 2026-05-18T{i // 60 % 24:02d}:{i % 60:02d}:00Z\n\n"
        f"Active work: feature/big {i}\n\nDirectives for next session:\n"
        f"- check item {i} (unconsumed)\n\n---\n\n"
        for i in range(count)
    )
    page = wiki_page("Next steps", 1, False)
    return page.replace(f"## {section}", log + f"## {section}", 1)


def write_case(root: Path, case: str, lines: int) -> tuple[Path, Path, str]:
    """(source root, the note, target format) of one case, written under ``root``."""
    if case not in ("next-steps", "files-touched", "citations", "bm-observations"):
        src = root / case
        (src / "aiwiki" / "sessions").mkdir(parents=True)
        note = src / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
        if case == "prose":
            text = prose_page(lines // 20)
        elif case == "emoji":  # the next-steps case with U+1F680 in its focus
            text = wiki_page("Next steps", lines, False).replace(
                "focus: a big note", "focus: a big note \U0001f680"
            )
        elif case == "emoji-body":  # the next-steps case with U+1F680 in one bullet
            text = wiki_page("Next steps", lines, False).replace(
                "- 5\n", "- ship it \U0001f680\n", 1
            )
        elif case == "token":  # the emoji case with words the secret check looks at
            text = (
                wiki_page("Next steps", lines, False)
                .replace("focus: a big note", "focus: a big note \U0001f680")
                .replace("- 5\n", "- rotate the auth token\n", 1)
            )
        elif case == "checkpoints":
            text = checkpoints_page(lines // 40)
        elif case == "open-questions":
            text = checkpoints_page(lines // 40, "Next steps")
        elif case == "paragraphs":
            paragraphs = "".join(f"para {i}\n\n" for i in range(lines * 3 // 10))
            text = wiki_page("Next steps", 1, False).replace(
                "(filled by /wrap)\n\n## Next steps", paragraphs + "## Next steps", 1
            )
        elif case == "two-notes":  # two pages of the next-steps case, in one run
            text = wiki_page("Next steps", lines, False)
            other = src / "aiwiki" / "sessions" / "2026-05-18-8e8a3f2.md"
            other.write_bytes(text.replace("7e8a3f2-", "8e8a3f2-").encode())
        else:
            text = distinct_page(lines // 4, "\r\n" if case == "crlf" else "\n")
        note.write_bytes(text.encode())  # (CRLF kept as written)
        return src, note, "basic-memory"
    if case == "bm-observations":
        src = root / case
        (src / "sessions").mkdir(parents=True)
        note = src / "sessions" / "Session big.md"
        note.write_text(bm_note(lines // 4), encoding="utf-8")
        return src, note, "aiwiki"
    section = {
        "next-steps": "Next steps",
        "files-touched": "Files touched",
        "citations": "Files touched",
    }[case]
    n = lines // 5 if case == "citations" else lines
    src = root / case
    (src / "aiwiki" / "sessions").mkdir(parents=True)
    note = src / "aiwiki" / "sessions" / "2026-05-18-7e8a3f2.md"
    note.write_text(wiki_page(section, n, case == "citations"), encoding="utf-8")
    return src, note, "basic-memory"


def measure(argv: list[str]) -> tuple[float, float, int]:
    """(peak RSS in MB, user + system CPU seconds, exit status) of ``argv`` under time -v."""
    proc = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True)
    err = proc.stderr
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))  # type: ignore[union-attr]
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", err).group(1))  # type: ignore[union-attr]
    system = float(re.search(r"System time \(seconds\): ([\d.]+)", err).group(1))  # type: ignore[union-attr]
    if proc.returncode not in (0, 1):
        print(proc.stdout[-2000:], err[-3000:], file=sys.stderr)
    return rss / 1024, user + system, proc.returncode


CASES = (
    "next-steps",
    "files-touched",
    "citations",
    "bm-observations",
    "prose",
    "distinct",
    "crlf",
    "two-notes",
    "emoji",
    "emoji-body",
    "token",
    "checkpoints",
    "open-questions",
    "paragraphs",
)
COMMANDS = ("convert", "lint", "show")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="bullets per note (1,000,000)")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated cases")
    parser.add_argument("--commands", default=",".join(COMMANDS), help="convert,lint,show")
    args = parser.parse_args()
    sk = [sys.executable, "-m", "sessionkit"]
    tmp = Path(tempfile.mkdtemp(prefix="sk-bignote-"))
    try:
        print(f"{'case':<18}{'command':<10}{'size MB':>8}{'peak MB':>9}{'CPU s':>8}  rc")
        for case in args.cases.split(","):
            src, note, to = write_case(tmp, case, args.lines)
            size = note.stat().st_size / 1e6
            code = f"open({str(note)!r}, encoding='utf-8').read()"
            rss, cpu, rc = measure([sys.executable, "-c", code])
            print(f"{case:<18}{'read()':<10}{size:>8.1f}{rss:>9.1f}{cpu:>8.2f}  {rc}")
            for command in args.commands.split(","):
                if command == "convert":
                    out = tmp / f"{case}-out"
                    argv = [*sk, "convert", str(src), str(out), "--to", to, "--jobs", "1"]
                elif command == "lint":
                    argv = [*sk, "lint", str(src)]
                else:
                    argv = [*sk, "show", str(note), "--json"]
                rss, cpu, rc = measure(argv)
                print(
                    f"{case:<18}{command:<10}{size:>8.1f}{rss:>9.1f}{cpu:>8.2f}  {rc}", flush=True
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
