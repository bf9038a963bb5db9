"""atheris target: ``loads`` (each format and detection) and ``lint`` on arbitrary bytes.

Any exception that is not a :class:`~sessionkit.errors.SessionKitError` is a
crash.  Run by ``nox -s fuzz`` (bounded), or by hand::

    python fuzz/fuzz_loads.py CORPUS_DIR -max_total_time=600

The first input byte picks the format; the rest is the note.  Besides never
crashing, ``lint`` must return diagnostics (never raise), and a note that
reads must render back to exactly its text.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    # the package's names are lazy: import the modules that do the work here,
    # inside the block, so that they are instrumented
    import sessionkit
    import sessionkit._api
    import sessionkit._yaml
    import sessionkit.adapters
    import sessionkit.adapters._aiwiki_lint
    import sessionkit.adapters._aiwiki_parse
    import sessionkit.adapters._aiwiki_write
    import sessionkit.adapters.aiwiki
    import sessionkit.adapters.basic_memory
    import sessionkit.adapters.basic_memory.grammar
    import sessionkit.adapters.basic_memory.read
    import sessionkit.adapters.picoschema
    import sessionkit.document
    import sessionkit.markdown
    import sessionkit.text.grammar
    from sessionkit.diagnostics import Diagnostic
    from sessionkit.errors import SessionKitError

FORMATS = (None, "aiwiki-v2", "aiwiki-v1", "basic-memory")
#: keep single inputs small: the size limit is tested by tests/test_hostile.py
MAX_BYTES = 64 * 1024


def test_one_input(data: bytes) -> None:
    """One fuzz input: pick a format, then read, render and lint."""
    if not data:
        return
    fmt = FORMATS[data[0] % len(FORMATS)]
    body = data[1:]
    try:
        text = sessionkit.decode(body, "fuzz.md")
    except SessionKitError:
        text = body.decode("utf-8", "replace")
    try:
        session = sessionkit.loads(text, path="fuzz.md", format=fmt, max_bytes=MAX_BYTES)
    except SessionKitError:
        pass
    else:
        if sessionkit.dumps(session) != text:
            raise AssertionError("an unedited note did not render back to its text")
    found = sessionkit.lint(text, path="fuzz.md", format=fmt, max_bytes=MAX_BYTES)
    if not all(isinstance(d, Diagnostic) for d in found):
        raise AssertionError("lint returned something that is not a Diagnostic")


def main() -> None:
    """Run atheris with the command line's options."""
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
