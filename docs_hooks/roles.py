"""mkdocs hook: Sphinx roles in docstrings render as code, not as raw ``:class:`` text.

The docstrings use Sphinx-style roles (``:class:`~sessionkit.model.Session```)
that read well in the source and in ``help()``; mkdocstrings renders Google
style Markdown, where a role is plain text.  This hook turns each rendered
role into the code it names (``~`` keeps only the last part, as Sphinx does),
so the API reference shows ``Session``, never ``:class:Session``.
"""

from __future__ import annotations

import re
from typing import Any

_ROLE = re.compile(
    r":(?:py:)?(?:class|func|meth|attr|data|mod|exc|obj|const):<code>(~?)([^<]*)</code>"
)


def _code(m: re.Match[str]) -> str:
    target = m.group(2)
    if m.group(1):
        target = target.rsplit(".", 1)[-1]
    return f"<code>{target}</code>"


def on_page_content(html: str, **kwargs: Any) -> str:
    """Rewrite rendered roles in a page's HTML."""
    return _ROLE.sub(_code, html)
