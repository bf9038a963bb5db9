"""What the real basic-memory extracts from a body (run only where it is installed)."""

from __future__ import annotations

from typing import Any


def bm_facts(body: str) -> dict[str, list[dict[str, Any]]]:
    """Observations and relations exactly as basic-memory's parser returns them."""
    from basic_memory.markdown.entity_parser import parse

    parsed = parse(body)
    return {
        "observations": [
            {
                "category": o.category,
                "content": o.content,
                "tags": list(o.tags or []),
                "context": o.context,
            }
            for o in parsed.observations
        ],
        "relations": [
            {"type": r.type, "target": r.target, "context": r.context} for r in parsed.relations
        ],
    }


if __name__ == "__main__":  # regenerate the golden expectations from the real parser
    import json
    import sys
    from pathlib import Path

    folder = Path(sys.argv[1])
    for md in sorted(folder.glob("*.md")):
        data = bm_facts(md.read_text(encoding="utf-8"))
        md.with_suffix(".json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
