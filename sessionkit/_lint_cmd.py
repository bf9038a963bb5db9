"""``sessionkit lint`` of local paths, the run people make most, without click.

``sessionkit lint DIR``, in a pre-commit hook or CI, pays for every module it
imports before it reads a page, and click with what it imports is about a
third of a short run.  :func:`main` runs the plain form of the command itself:
local paths, ``--json`` and ``--jobs N`` (``-j N``, ``--jobs=N``), nothing
else; no path is the configured store, which with no configuration source is
the repository root (``sessionkit lint`` in a repository).  Any other form,
``--help`` included, is the click command's (:func:`sessionkit._cli.lint`), and
so are no path when a configuration source exists and every form when the
fast lanes are off (:mod:`sessionkit.fastpaths`, lane ``cli-lint``): both
share this module's steps (:func:`local_items`, :func:`report`,
:func:`failure_text`), and ``tests/test_cli_lint_fast.py`` checks that they
print the same and exit the same.
"""

from __future__ import annotations

import os
import sys

from . import fastpaths as _fastpaths
from .diagnostics import Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from typing import Any

    from .diagnostics import Diagnostic

__all__ = ["failure_text", "local_items", "main", "render_json", "render_text", "report"]

#: exit codes (as the click commands have them)
OK, FINDINGS, UNUSABLE = 0, 1, 2


def _plain(argv: Sequence[str]) -> tuple[list[str], bool, int | None] | None:
    """(paths, ``--json``, ``--jobs``) of the plain form of ``lint``'s arguments (no
    path: the configured store), else ``None`` (anything else: an option it does not
    take, a URL)."""
    paths: list[str] = []
    as_json = False
    jobs: int | None = None
    args = iter(argv)
    for arg in args:
        value: str | None = None
        if arg == "--json" and not as_json:
            as_json = True
            continue
        if arg in ("--jobs", "-j") and jobs is None:
            value = next(args, None)
        elif arg.startswith("--jobs=") and jobs is None:
            value = arg[len("--jobs=") :]
        elif arg[:1] != "-" and "://" not in arg:
            paths.append(arg)
            continue
        else:
            return None
        if value is None or not value.isascii() or not value.isdigit() or value[0] == "0":
            return None  # (click says what is wrong with it)
        jobs = int(value)
    return paths, as_json, jobs


def main(argv: Sequence[str]) -> int | None:
    """Run ``sessionkit lint ARGV`` when it is the plain form; its exit code, else ``None``
    (then the click command runs it)."""
    if not _fastpaths.enabled("cli-lint") or "_SESSIONKIT_COMPLETE" in os.environ:
        return None
    plain = _plain(argv)
    if plain is None:
        return None
    paths, as_json, jobs = plain
    if not paths:  # the configured store: with no configuration, the repository root
        from ._config_sources import config_sources_exist, repository_root

        try:
            start = os.getcwd()
        except OSError:  # (a working directory that is gone: the click command says so)
            return None
        if config_sources_exist(start):
            return None  # (the click command reads the configuration for it)
        root = repository_root(start)
        if not os.path.isdir(os.path.join(root, "aiwiki", "sessions")):
            return None  # (no store here: the click command says so)
        paths = [_shown(root)]
    _fastpaths.answered("cli-lint")
    try:
        return _lint(paths, as_json, jobs)
    except BrokenPipeError:
        _silence_stdout()
        return FINDINGS
    except KeyboardInterrupt:
        sys.stderr.write("\nsessionkit: aborted\n")
        return 130
    except Exception as exc:
        from .errors import SessionKitError

        if not isinstance(exc, OSError | SessionKitError) and os.environ.get("SESSIONKIT_DEBUG"):
            raise
        from .redaction import scrub

        sys.stderr.write(f"sessionkit: {scrub(failure_text(exc))}\n")
        return UNUSABLE


def _lint(paths: list[str], as_json: bool, jobs: int | None) -> int:
    from itertools import chain, repeat

    from . import redaction
    from ._config_sources import config_sources_exist
    from .ops.lint import MAX_NOTE_BYTES, WikiSchemas

    limit = MAX_NOTE_BYTES
    if config_sources_exist(os.getcwd()):  # (else the built-in defaults: no config module)
        from .config import load_config

        config = load_config(None)
        limit = config.limits.max_note_bytes
        redaction.LINT_ALLOW = config.secrets.allow_values()
    else:
        redaction.LINT_ALLOW = frozenset()
    schemas = WikiSchemas()
    items = chain.from_iterable(map(local_items, paths, repeat(schemas)))  # (C-level)
    return FINDINGS if report(items, limit, jobs, as_json) else OK


def _is_url(target: str) -> bool:
    """Whether ``target`` names a remote (or ``memory://``) store: not a plain path and
    none of the file URL forms :func:`_local` reads."""
    return "://" in target and not target.startswith("file://")


def _local(target: str) -> str:
    """The local path a path argument names: itself, or for a file URL its path —
    ``file:/abs``, ``file:///abs`` and ``file://localhost/abs`` are all ``/abs``
    (``file://x`` keeps the relative ``x``, as :func:`sessionkit.open_store` reads
    it).  The one reading of a file URL for every command."""
    if not target.startswith("file:"):
        return target
    rest = target[len("file:") :]
    if rest.startswith("//"):
        rest = rest[2:]
        if rest.startswith("localhost/"):
            rest = rest[len("localhost") :]
    return rest


def _shown(url: str) -> str:
    """A local store path relative to the working directory when it is under it (as typed)."""
    if _is_url(url):
        return url
    try:
        rel = os.path.relpath(_local(url))
    except ValueError:  # another drive (Windows)
        return url
    return url if rel == ".." or rel.startswith(".." + os.sep) else rel


def local_items(target: str, schemas: Any) -> Iterator[Any]:
    """The lint work items (:data:`sessionkit.ops.lint.LintItem`) of a local path: a
    note, or every note of a folder (those behind a link leading outside it are
    refused), each with its wiki's own schema (``schemas``, a
    :class:`~sessionkit.ops.lint.WikiSchemas`).

    Raises:
        OSError: the path is not there (exit 2), raised when its turn comes.
    """
    from itertools import repeat

    from .ops.lint import note_runs, outside_wiki, spelled

    local = spelled(_local(target))
    refused: list[str] = []  # behind a link leading outside the folder: not read
    if os.path.isdir(local):
        for prefix, names in note_runs(local, refused):
            # (a run's notes share their folder: the schema is looked up once a run, and
            # the items are made by C-level maps)
            schema = schemas.for_note(prefix + names[0])
            yield from zip(repeat("file"), map(prefix.__add__, names), repeat(None), repeat(schema))
    else:
        os.stat(local)  # a missing path is an error (exit 2), not an empty lint
        away = outside_wiki(local)  # (a note of a wiki: the store's root rule)
        if away is not None:
            yield ("error", local, (f"refused: it resolves to {away[0]}, outside {away[1]}", None))
            return
        yield ("file", local, None, schemas.for_note(local))
    for path in refused:
        real = os.path.realpath(path)
        yield ("error", path, (f"refused: it resolves to {real}, outside {local}", None))


def report(items: Iterable[Any], limit: int, jobs: int | None, as_json: bool) -> bool:
    """Lint the work items (:data:`sessionkit.ops.lint.LintItem`) over ``jobs``
    processes and print every finding as it comes (``path:line: CODE severity:
    message``, or a JSON list); whether one is an error.

    Each process formats the findings it made (:func:`render_text`,
    :func:`render_json`): workers send back text, not findings.
    """
    from .ops.lint import lint_many

    render = render_json if as_json else render_text
    errors = False
    count = 0
    # (one write a note into stdout's own buffer: a flush per note would be a system
    # call per note; a terminal's stdout is line-buffered anyway)
    write = sys.stdout.write
    from .redaction import scrub

    for text, found, error in lint_many(items, limit=limit, jobs=jobs, render=render):
        if found:
            errors = errors or error
            text = scrub(text)  # (a message may quote a value: a file name, a key's value)
            if as_json:
                write(("[\n" if not count else ",\n") + text)
            else:
                write(text)
            count += found
    if as_json:
        write("\n]\n" if count else "[]\n")
    sys.stdout.flush()
    return errors


#: the severity that fails a run (an enum member read once, not once a finding)
_ERROR = Severity.ERROR


def render_text(found: list[Diagnostic]) -> tuple[str, int, bool]:
    """One note's findings as ``lint`` prints them (a line each), their number, and
    whether one is an error."""
    if not found:
        return "", 0, False
    error = _ERROR
    if len(found) == 1:  # (the usual case: no comprehension)
        diag = found[0]
        return f"{diag}\n", 1, diag.severity is error
    text = "".join([f"{diag}\n" for diag in found])
    return text, len(found), any(diag.severity is error for diag in found)


def render_json(found: list[Diagnostic]) -> tuple[str, int, bool]:
    """One note's findings as elements of ``lint --json``'s list (joined by ``,\\n``),
    their number, and whether one is an error."""
    if not found:
        return "", 0, False
    error = _ERROR
    text = ",\n".join([_json_item(diag) for diag in found])
    return text, len(found), any(diag.severity is error for diag in found)


def _json_item(diag: Diagnostic) -> str:
    """One finding as ``json.dumps(list, indent=2)`` prints a list element."""
    import json

    return "  " + json.dumps(diag.to_dict(), indent=2, ensure_ascii=False).replace("\n", "\n  ")


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip()) or text


def _os_message(exc: OSError) -> str:
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is not None:
        return f"{os.fsdecode(exc.filename)}: {reason}"
    return reason


def failure_text(exc: BaseException) -> str:
    """The one line (after ``sessionkit: ``) that reports an error stopping a command."""
    from .errors import SessionKitError

    if isinstance(exc, SessionKitError):
        return _one_line(exc.cli_text())
    from .backends._netfail import http_error, unreachable

    why = unreachable(exc)  # a remote store's endpoint refused or never answered
    if why is not None:
        return f"cannot reach the store: {why}"
    answer = http_error(exc)  # (an S3 500 is "[Errno 121] ..." otherwise)
    if answer is not None:
        return f"the store failed: {answer}"
    if isinstance(exc, OSError):
        return _one_line(_os_message(exc))
    return _one_line(f"internal error: {type(exc).__name__}: {exc}")


def _silence_stdout() -> None:
    """Point stdout at the null device (a closed pipe: nothing more to say there)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
