"""The checks: ``nox -s tests lint typecheck docs``; ``nox -s interop`` for basic-memory."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint", "typecheck"]
nox.options.reuse_existing_virtualenvs = True

PY = "3.11"


@nox.session(python=PY)
def tests(session: nox.Session) -> None:
    """Run the test suite (the README's test command)."""
    session.install("-e", ".[test]")
    session.run("pytest", "--hypothesis-profile=ci", *session.posargs)


@nox.session(python=PY)
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check."""
    session.install("ruff==0.17.6")  # pinned: new ruff releases add rules and formats
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PY)
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the package."""
    session.install("-e", ".[test]", "mypy==2.4.1", "types-PyYAML")  # test: pytest types
    session.run("mypy", "--strict", "sessionkit")


@nox.session(python=PY)
def docs(session: nox.Session) -> None:
    """Build the docs site with warnings as errors (``mkdocs build --strict``)."""
    session.install("-e", ".[docs]")
    session.run("mkdocs", "build", "--strict", env={"NO_MKDOCS_2_WARNING": "1"})


@nox.session(python=PY)
def memory(session: nox.Session) -> None:
    """The tracemalloc measurements of big conversions (``-m memory``), which the
    default test run leaves out: minutes of converting 30,000- to 100,000-line notes."""
    session.install("-e", ".[test]")
    session.run("pytest", "-m", "memory", "-p", "no:cacheprovider", *session.posargs)


@nox.session(python=PY)
def stress(session: nox.Session) -> None:
    """The stress trials (``-m stress``) the default test run leaves out: big inputs whose
    behaviour a quicker default test holds too, with Hypothesis's full example counts."""
    session.install("-e", ".[test]")
    session.run(
        "pytest", "-m", "stress", "-p", "no:cacheprovider", "--hypothesis-profile=ci",
        *session.posargs,
    )  # fmt: skip


#: the basic-memory release the interop tests were verified against (needs Python >= 3.12)
BASIC_MEMORY_VERSION = "0.24.1"


@nox.session(python="3.12")
def interop(session: nox.Session) -> None:
    """sessionkit against the real basic-memory: index, write_note, permalinks, grammar.

    basic-memory runs in temp folders only (its config dir, HOME and project are
    per-test temp dirs; update checks, telemetry and proxies are switched off).
    """
    session.install(f"basic-memory=={BASIC_MEMORY_VERSION}", "-e", ".[test]")
    session.run("pytest", "tests/interop", "-p", "no:cacheprovider", *session.posargs)


@nox.session(python=PY)
def bench(session: nox.Session) -> None:
    """Every benchmark in benchmarks/ (small by default; ``-- --size 20000`` for the targets).

    The Basic Memory comparison needs the interop venv (``nox -s interop``,
    or ``/tmp/bmvenv``, or ``SK_BM_PYTHON``); without one it says so and skips.
    """
    session.install("-e", ".[bench]")
    session.run("python", "benchmarks/run_all.py", *session.posargs)


@nox.session(python=PY)
def fuzz(session: nox.Session) -> None:
    """atheris on ``loads`` (every format) and ``lint``, seeded with the test corpora.

    Bounded: 60 s in total by default; ``nox -s fuzz -- --seconds 3600`` by hand.
    A crash fails the session and leaves its input in ``fuzz/artifacts/``.
    """
    session.install("-e", ".", "atheris")
    session.run("python", "fuzz/run.py", *session.posargs)
