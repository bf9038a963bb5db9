"""Write notes with basic-memory's own ``write_note`` (run in a subprocess, isolated env).

Usage: python _bm_writer.py SPEC.json OUT.json — SPEC is a list of
``{"title", "folder", "content", "tags", "note_type", "metadata"}``; OUT gets
basic-memory's JSON result for each.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    from basic_memory.cli.commands.command_utils import run_with_cleanup
    from basic_memory.cli.commands.routing import force_routing
    from basic_memory.mcp.tools import write_note

    with open(sys.argv[1], encoding="utf-8") as fh:
        spec = json.load(fh)
    results = []

    async def write_all() -> None:
        for item in spec:
            result = await write_note(
                title=item["title"],
                content=item["content"],
                directory=item["folder"],
                project=item.get("project"),
                tags=item.get("tags"),
                note_type=item.get("note_type", "note"),
                metadata=item.get("metadata"),
                output_format="json",
            )
            results.append(result)

    with force_routing(local=True):
        run_with_cleanup(write_all())
    with open(sys.argv[2], "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=2, default=str)


if __name__ == "__main__":
    main()
