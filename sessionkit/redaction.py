"""Credentials kept out of notes: detection and redaction of secret-shaped values.

Every write of a built-in store passes its text through :func:`guard` (the
one choke point, :class:`~sessionkit.backends._filestore.FileStore`), so a
hook, ``add``, ``status``, ``directive consume``, ``convert``, ``migrate``
and the Store API all get the same treatment: each detected secret is
replaced by a stable placeholder (``[REDACTED:aws-access-key]``) before the
bytes leave the process, and only those bytes change.

What is detected (:data:`KINDS`): AWS access keys and secret keys, GCP API
keys, OAuth tokens and service-account key ids, Azure storage account keys
and client secrets, GitHub, GitLab, Slack and Stripe tokens, Slack webhook
URLs, private key blocks, JWTs, passwords in URLs (``https://user:pw@host``)
and ``password=`` / ``token:`` style assignments whose value looks random
(at least 8 characters, mixed, and high in entropy).  A token broken over
two lines (a hard wrap, a folded YAML value) is found too.

The patterns are this module's own regular expressions: Yelp's
``detect-secrets`` was measured (see docs/secrets.md) and costs more to
import than the whole hook is allowed to take, scans line by line (a key
block's body is not found) and does not report where in a line a secret is.

Policy (:class:`Policy`, configuration ``secrets.redact`` and ``secrets.allow``):
``on`` (default) redacts; ``warn`` writes the text as it is and reports what
it found; ``off`` does not look.  Under ``warn`` and ``off`` a write to a
remote store, and every conversion, refuses a note that carries a secret
(:class:`SecretError`; nothing is written for that note).
"""

from __future__ import annotations

import re

from ._lazyre import lazy
from ._plain import Plain
from .errors import StoreError

TYPE_CHECKING = False
if TYPE_CHECKING:  # (light to import: the hooks redact what they write on every run)
    from collections.abc import Iterable, Iterator, Sequence
    from contextlib import AbstractContextManager
    from contextvars import ContextVar
    from typing import Any

__all__ = [
    "AIWIKI_CODE",
    "BASIC_MEMORY_CODE",
    "KINDS",
    "MODES",
    "Finding",
    "Policy",
    "Redacted",
    "SecretError",
    "collect",
    "find_secrets",
    "guard",
    "guard_pieces",
    "lint_secrets",
    "placeholder",
    "redact",
    "relay",
    "scrub",
    "scrub_data",
    "strict",
]

MODES = ("on", "warn", "off")


class SecretError(StoreError):
    """A write would carry a detected secret where that is refused."""


def placeholder(kind: str) -> str:
    """The text a secret of ``kind`` is replaced by: ``[REDACTED:kind]``."""
    return f"[REDACTED:{kind}]"


_PLACEHOLDER = lazy(r"\[REDACTED:[a-z0-9-]+\]|REDACTED:[a-z0-9-]+")

# -- detectors -------------------------------------------------------------------------
# (kind, pattern, group holding the secret, what may not come right before it, literals
# one of which the text must contain, the same in lower case): a pattern runs only on a
# text holding one of its literals, so most notes are looked at by a few substring
# searches; patterns begin with a literal where they can (the fast path of ``re``).
_E = r"(?![A-Za-z0-9_])"  # no token character after
_TOKEN, _WORD = "token", "word"  # no letter, digit (or underscore, for token) before
_ALONE = "alone"  # a value with no prefix of its own: on the lines as they are, key-like

_DETECTORS: tuple[tuple[str, str, int, str | None, tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "private-key",
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:\r?\n[A-Za-z0-9+/=:, -]+)*)",
        0,
        None,
        ("PRIVATE KEY",),
        (),
    ),
    (
        "aws-access-key",
        r"((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})" + _E,
        1,
        _TOKEN,
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        (),
    ),
    (
        "aws-secret-key",
        r"(?i)aws[A-Za-z0-9_ .-]{0,20}?secret[A-Za-z0-9_ .-]{0,20}?[\"']?\s*[:=]\s*[\"']?"
        r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        1,
        None,
        (),
        ("secret",),  # (it needs "aws" too: "secret" is the literal secret-assignment has)
    ),
    ("gcp-api-key", r"(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])", 1, _TOKEN, ("AIza",), ()),
    ("gcp-oauth-token", r"(ya29\.[0-9A-Za-z_-]{20,})", 1, _TOKEN, ("ya29.",), ()),
    (
        "gcp-service-account-key",
        r"\"private_key_id\"\s*:\s*\"([0-9a-f]{40})\"",
        1,
        None,
        ("private_key_id",),
        (),
    ),
    (
        "azure-storage-key",
        r"(?i)(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{40,86}={0,2})(?![A-Za-z0-9+/=])",
        1,
        None,
        (),
        ("accountkey", "sharedaccesskey"),
    ),
    (
        "azure-client-secret",
        r"([A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34})" + _E,
        1,
        _TOKEN,
        ("Q~",),
        (),
    ),
    (
        "azure-sas-token",
        r"(?i)[?&]sig=([A-Za-z0-9%+/]{40,}(?:%3D|=)*)",
        1,
        None,
        (),
        ("sig=",),
    ),
    (
        "github-token",
        r"((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255})" + _E,
        1,
        _TOKEN,
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        (),
    ),
    ("github-token", r"(github_pat_[A-Za-z0-9_]{60,255})" + _E, 1, _TOKEN, ("github_pat_",), ()),
    (
        "gitlab-token",
        r"(gl(?:pat|dt|ptt|rt|soat|cbt|imt|oas|agent|ffct)-[0-9A-Za-z_-]{20,})",
        1,
        _TOKEN,
        tuple(f"gl{p}-" for p in ("pat", "dt", "ptt", "rt", "soat", "cbt", "imt", "oas")),
        (),
    ),
    (
        "slack-token",
        r"(xox[abposre]-[0-9A-Za-z][0-9A-Za-z-]{8,250}[0-9A-Za-z])",
        1,
        _TOKEN,
        ("xox",),
        (),
    ),
    (
        "slack-webhook",
        r"(https://hooks\.slack\.com/(?:services|workflows)/T[0-9A-Z]+/[0-9A-Za-z/]{20,})",
        1,
        None,
        ("://hooks.slack.com",),
        (),
    ),
    (
        "stripe-key",
        r"((?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,247})" + _E,
        1,
        _TOKEN,
        ("_live_", "_test_"),
        (),
    ),
    (
        "gcp-oauth-secret",
        r"(GOCSPX-[A-Za-z0-9_-]{28})(?![A-Za-z0-9_-])",
        1,
        _TOKEN,
        ("GOCSPX-",),
        (),
    ),
    (
        "anthropic-key",
        r"(sk-ant-(?:api|admin|sid)\d\d-[A-Za-z0-9_-]{20,300})" + _E,
        1,
        _TOKEN,
        ("sk-ant-",),
        (),
    ),
    (
        "openai-key",
        r"(sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,300}"
        r"|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|sk-[A-Za-z0-9]{48})" + _E,
        1,
        _TOKEN,
        ("sk-",),
        (),
    ),
    (
        "huggingface-token",
        r"((?:hf|api_org)_[A-Za-z]{30,40})" + _E,
        1,
        _TOKEN,
        ("hf_", "api_org_"),
        (),
    ),
    ("npm-token", r"(npm_[A-Za-z0-9]{36})" + _E, 1, _TOKEN, ("npm_",), ()),
    ("pypi-token", r"(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})", 1, _TOKEN, ("pypi-AgEI",), ()),
    ("twilio-key", r"(SK[0-9a-fA-F]{32})" + _E, 1, _TOKEN, ("SK",), ()),
    (
        "sendgrid-key",
        r"(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])",
        1,
        _TOKEN,
        ("SG.",),
        (),
    ),
    (
        "digitalocean-token",
        r"(do[opr]_v1_[a-f0-9]{64})" + _E,
        1,
        _TOKEN,
        ("dop_v1_", "doo_v1_", "dor_v1_"),
        (),
    ),
    (
        "shopify-token",
        r"(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})" + _E,
        1,
        _TOKEN,
        ("shpat_", "shpca_", "shppa_", "shpss_"),
        (),
    ),
    ("heroku-key", r"(HRKU-[A-Za-z0-9_-]{60})(?![A-Za-z0-9_-])", 1, _TOKEN, ("HRKU-",), ()),
    (
        "heroku-key",
        r"(?i)heroku[A-Za-z0-9_ .:=\"'-]{0,40}?"
        r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![0-9a-f-])",
        1,
        _WORD,
        (),
        ("heroku",),
    ),
    (
        # a bot token has no prefix of its own: looked for in a note that names Discord
        "discord-token",
        r"([MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})(?![A-Za-z0-9_-])",
        1,
        _TOKEN,
        (),
        ("discord",),
    ),
    (
        "discord-webhook",
        r"(https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,})",
        1,
        None,
        ("/api/webhooks/",),
        (),
    ),
    ("telegram-token", r"(\d{8,10}:AA[A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])", 1, _TOKEN, (":AA",), ()),
    (
        # an AWS secret key by itself (a line of its own after the key id), in a note that
        # names AWS: 40 base64 characters mixing cases and digits (not a hex sha)
        "aws-secret-key",
        r"(?<![A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        1,
        "alone",
        (),
        ("aws",),
    ),
    (
        "jwt",
        r"(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)",
        1,
        _TOKEN,
        ("eyJ",),
        (),
    ),
    (
        "basic-auth-url",
        r"://[^\s/?#@:\"'<>]{1,100}:([^\s/?#@\"'<>]{1,200})@",
        1,
        None,
        ("://",),
        (),
    ),
    (
        "bearer-token",
        r"(?i)bearer[ \t]+([A-Za-z0-9._~+/-]{20,500}=*)",
        1,
        None,
        (),
        ("bearer",),
    ),
    (
        "secret-assignment",
        r"(?i)(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|access[_-]?key"
        r"|private[_-]?key|auth|credentials?)"
        r"(?:[_.-][a-z0-9]+){0,3}[\"']?[ \t]*(:=|=>|:|=)[ \t]*",
        1,
        _WORD,
        (),
        ("pass", "pwd", "secret", "token", "api", "access", "private", "auth", "credential"),
    ),
)

KINDS: tuple[str, ...] = tuple(dict.fromkeys(d[0] for d in _DETECTORS))

_Detector = tuple[str, "re.Pattern[str]", int, str | None, tuple[str, ...], tuple[str, ...]]
_COMPILED: list[_Detector] | None = None


def _compiled() -> list[_Detector]:
    global _COMPILED
    if _COMPILED is None:
        _COMPILED = [
            (k, re.compile(p, re.S), g, b, lit, low) for k, p, g, b, lit, low in _DETECTORS
        ]
    return _COMPILED


_ASSIGNMENT = "secret-assignment"
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _lower(text: str) -> str:
    """``text.lower()``, lowered a block of lines at a time when ``text`` is not ASCII.

    ``str.lower`` of a text that is not all ASCII first fills a buffer of 12
    bytes a character (three 4-byte characters each may become); a big note
    is lowered 64 KiB at a time instead (:func:`_line_blocks`), and joined once.
    """
    if text.isascii() or len(text) <= _LOWER_BLOCK:
        return text.lower()
    return "".join([block.lower() for block in _line_blocks(text)])


def _line_blocks(text: str) -> Iterator[str]:
    """``text`` in blocks of about 64 Ki characters, each cut after a line break.

    No character lowers differently for what lies beyond a line break (a final
    sigma looks no further), and no detector literal holds one, so a block's
    lower case is its part of the text's, and a literal is in the text when it
    is in one of its blocks.
    """
    start = 0
    n = len(text)
    while start < n:
        cut = text.find("\n", start + _LOWER_BLOCK) + 1 or n
        yield text[start:cut]
        start = cut


#: characters lowered at once by :func:`_lower`
_LOWER_BLOCK = 1 << 16


def _ascii_lower(text: str) -> str:
    """``text`` with its ASCII letters lowered, every other character where it was.

    ``str.lower`` is much faster than ``translate`` and lowers ASCII letters
    the same way; it is used when it keeps every character's place (same
    length) and changes no character into an ASCII one (U+212A, the Kelvin
    sign, lowers to ``k``), so a keyword found in the result is one in the text.
    """
    if text.isascii():
        return text.lower()
    low = _lower(text)
    if len(low) == len(text) and low.count("k") == text.count("k") + text.count("K"):
        return low
    return text.translate(_ASCII_LOWER)


def _matches(
    view: str, lower: str, pattern: re.Pattern[str], keywords: tuple[str, ...] | None
) -> Iterator[re.Match[str]]:
    """``pattern``'s matches; with ``keywords``, tried only where one of them starts.

    (An alternation of words is slow in ``re``: a few ``str.find`` loops
    over the text in lower case find the places to try instead.)
    """
    if keywords is None:
        yield from pattern.finditer(view)
        return
    starts: set[int] = set()
    for word in keywords:
        at = lower.find(word)
        while at >= 0:
            starts.add(at)
            at = lower.find(word, at + 1)
    end = -1
    for at in sorted(starts):
        if at < end:
            continue
        m = pattern.match(view, at)
        if m is not None:
            end = m.end()
            yield m


def _after_boundary(view: str, start: int, rule: str | None) -> bool:
    if rule is None or start == 0:
        return True
    before = view[start - 1]
    return not (before.isalnum() or (rule == _TOKEN and before == "_"))


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    from math import log2  # (only here: a hook that meets no assignment never imports it)

    return -sum(c / n * log2(c / n) for c in counts.values())


# words, file names and paths, dates and times: assigned values that are not credentials
_NOT_RANDOM = lazy(
    r"(?i)[a-z]+(?:[_-][a-z]+)*"
    r"|[\w./~-]*\.(?:md|txt|json|ya?ml|toml|ini|cfg|py|js|ts|sh|env|pem|key|crt|log)"
    r"|\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?"
)


def _random_looking(value: str) -> bool:
    """Whether an assigned value looks like a credential, not a word or a placeholder."""
    if len(value) < 8 or _PLACEHOLDER.search(value):
        return False
    if value.startswith(("$", "%", "<", "{", "*", "...", "…")) or value.endswith(("}", ">")):
        return False  # ${TOKEN}, %(token)s, <your token>, {{ secret }}
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )
    if classes < 2 or _NOT_RANDOM.fullmatch(value) or _NOT_A_VALUE.fullmatch(value):
        return False
    if any(c.isspace() for c in value):  # quoted: a phrase of words is no credential
        mixed = classes - any(c.isspace() for c in value if not c.isalnum())
        mixed += any(not c.isalnum() and not c.isspace() for c in value)
        if mixed < 3 or len(value.split()) > 4:
            return False
    return _entropy(value) >= 3.0


_QUOTES = "\"'`"


def _assigned(view: str, at: int, sep: str) -> tuple[int, int]:
    """The span of the value assigned at ``at`` (just past ``sep`` and its blanks).

    A quoted value runs to its closing quote on the line (blanks included); a
    bare one to the first blank, and for ``=`` also to ``;``, ``,`` or ``&`` (a
    connection string, a query); closing brackets and commas after it are not
    part of it.
    """
    n = len(view)
    if at < n and view[at] in _QUOTES:
        close = view.find(view[at], at + 1, min(n, at + 202))
        line_end = view.find("\n", at + 1)
        if close > at and (line_end < 0 or close < line_end):
            return at + 1, close
        at += 1
    stops = " \t\r\n" + _QUOTES + ("" if sep.startswith(":") else ";,&")
    end = at
    limit = min(n, at + 200)
    while end < limit and view[end] not in stops:
        end += 1
    while end > at and view[end - 1] in ",;)]}":
        end -= 1
    return at, end


# a code reference (``Rails.application.credentials.secret_key_base``, ``os.environ["X"]``,
# ``get_token()``), an e-mail address, a URL without a password, a key name
# (``auth: api_key: …``): values that are not credentials
_NOT_A_VALUE = lazy(
    r"[A-Za-z_]+\d*(?:(?:\.|::|->)[A-Za-z_]+\d*)+(?:\(.*\)|\[.*\])*[(\[]?"
    r"|[A-Za-z_]+\d*(?:\(.*\)|\[.*\]|[(\[])+"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|[a-z][a-z0-9+.-]*://[^\s:@/]+(?::\d+)?(?:/\S*)?"
    r"|[A-Za-z_][\w.-]*[:=]"
)


def _key_like(value: str) -> bool:
    """Whether a prefix-less value (:data:`_ALONE`) looks like a key: cases and digits
    mixed (a hex sha has no capitals) and high in entropy (not words run together)."""
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and sum(c.isdigit() for c in value) >= 2
        and _entropy(value) >= 4.2
    )


class Finding(Plain):
    """One detected secret: where and what kind, never its value.

    Attributes:
        kind: what it looks like (one of :data:`KINDS`).
        line: 1-based line where it starts.
        column: 1-based column where it starts.
        path: the note (store path) it is in, when known.
        redacted: whether it was replaced (``False``: written as is, ``warn``).
    """

    __slots__ = ("column", "kind", "line", "path", "redacted")

    def __init__(
        self, *, kind: str, line: int, column: int, path: str | None = None, redacted: bool = True
    ) -> None:
        self.kind = kind
        self.line = line
        self.column = column
        self.path = path
        self.redacted = redacted

    def __str__(self) -> str:
        return f"{self.path or '<text>'}:{self.line}: {self.kind}"

    def to_dict(self) -> dict[str, Any]:
        """JSON shape: path, line, column, kind, redacted."""
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "kind": self.kind,
            "redacted": self.redacted,
        }


class _Span(Plain):
    __slots__ = ("end", "kind", "start")

    def __init__(self, *, start: int, end: int, kind: str) -> None:
        self.start = start
        self.end = end
        self.kind = kind


# kinds looked for only on the lines as they are (no fixed shape, or multi-line already)
_LINE_KINDS = frozenset({"private-key", "secret-assignment", "bearer-token", "basic-auth-url"})
_JOIN = lazy(r"(?<=[A-Za-z0-9+/=_.-])\r?\n[ \t>]*(?=[A-Za-z0-9+/=_.-])")


def _spans(text: str, allow: frozenset[str]) -> list[_Span]:
    """Secret spans in ``text``, sorted, overlaps merged."""
    if not _may_hold(text):  # no detector's literal: none of them would run
        return []
    found: list[_Span] = []
    seen: set[tuple[str, int]] = set()  # (kind, start) of every match on the lines as they are

    def look(view: str, where: Any, kinds: Any = None) -> set[str]:
        """Run the detectors whose literals ``view`` holds; returns the kinds that ran."""
        lower = _ascii_lower(view)
        ran: set[str] = set()
        for kind, pattern, group, rule, literals, lowered in _compiled():
            if kinds is not None and (kind in kinds or rule == _ALONE):
                continue
            for lit in literals:
                if lit in view:
                    break
            else:
                for lit in lowered:
                    if lit in lower:
                        break
                else:
                    continue
            ran.add(kind)
            for m in _matches(view, lower, pattern, lowered if kind == _ASSIGNMENT else None):
                if not _after_boundary(view, m.start(), rule):
                    continue
                if kind == _ASSIGNMENT:
                    start, end = _assigned(view, m.end(), m.group(1))
                else:
                    start, end = m.span(group)
                value = view[start:end]
                if kinds is None:
                    seen.add((kind, start))
                if not value or value in allow or _PLACEHOLDER.fullmatch(value):
                    continue
                if kind == _ASSIGNMENT and not _random_looking(value):
                    continue
                if rule == _ALONE and not _key_like(value):
                    continue
                if kind == "basic-auth-url" and (
                    value in ("***", "****", "x-oauth-basic") or value.startswith("$")
                ):
                    continue
                span = where(start, end, kind)
                if span is not None:
                    found.append(span)
        return ran

    ran = look(text, lambda s, e, k: _Span(start=s, end=e, kind=k))
    # a token broken over lines: look again with those line breaks taken out, and keep
    # what crosses a removed break and overlaps nothing found on the lines as they are
    # (only when a detector of a fixed shape ran: its literal begins the token)
    if not ran - _LINE_KINDS:
        return _merged(found)
    from array import array

    # where each removed break was, in the joined text, and the characters removed
    # up to and including it: two machine ints a break (a note of a million short
    # lines has about as many breaks), not a tuple and a piece of text each
    cut_at = array("q")
    removed_upto = array("q")
    removed = 0
    for m in _JOIN.finditer(text):
        a, b = m.span()
        cut_at.append(a - removed)
        removed += b - a
        removed_upto.append(removed)
    if cut_at:
        import bisect

        def back(offset: int, end: bool) -> int:
            i = (bisect.bisect_left if end else bisect.bisect_right)(cut_at, offset)
            return offset + (removed_upto[i - 1] if i else 0)

        def crossing(s: int, e: int, k: str) -> _Span | None:
            start, stop = back(s, False), back(e, True)
            if k in _LINE_KINDS or stop - start == e - s:
                return None  # on one line (or a kind of no fixed shape): the plain look decides
            if (k, start) in seen:
                return None  # the whole token ends at the line's end: not split
            return _Span(start=start, end=stop, kind=k)

        look(_JOIN.sub("", text), crossing, _LINE_KINDS)
    return _merged(found)


def _merged(found: list[_Span]) -> list[_Span]:
    """Spans sorted, overlapping ones merged (the first one's kind).

    An assigned value that overlaps a secret of a fixed shape gives way to it
    (``x-access-token:ghp_…@github.com``: the token, not the rest of the URL).
    """
    if any(sp.kind == _ASSIGNMENT for sp in found) and any(sp.kind != _ASSIGNMENT for sp in found):
        import bisect

        shaped = _merged([sp for sp in found if sp.kind != _ASSIGNMENT])
        starts = [sp.start for sp in shaped]
        kept = []
        for sp in found:
            if sp.kind != _ASSIGNMENT:
                continue
            i = bisect.bisect_left(starts, sp.end)  # the shaped spans starting before its end
            if i and shaped[i - 1].end > sp.start:
                continue
            kept.append(sp)
        found = shaped + kept
    found.sort(key=lambda sp: (sp.start, -sp.end))
    merged: list[_Span] = []
    for sp in found:
        if merged and sp.start < merged[-1].end:
            last = merged[-1]
            if sp.end > last.end:
                merged[-1] = _Span(start=last.start, end=sp.end, kind=last.kind)
            continue
        merged.append(sp)
    return merged


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def find_secrets(text: str, *, allow: Iterable[str] = (), path: str | None = None) -> list[Finding]:
    """Every secret-shaped value in ``text`` (values in ``allow`` excepted), in order."""
    return [
        Finding(kind=sp.kind, line=line, column=col, path=path)
        for sp in _spans(text, frozenset(allow))
        for line, col in (_position(text, sp.start),)
    ]


class Redacted(Plain):
    """The result of :func:`redact`: the new text and what was replaced."""

    __slots__ = ("findings", "text")

    def __init__(self, *, text: str, findings: tuple[Finding, ...] = ()) -> None:
        self.text = text
        self.findings = findings


def _frontmatter_end(text: str) -> int:
    """Offset just past the closing frontmatter fence (0 when there is none)."""
    start = 1 if text.startswith("\ufeff") else 0
    if not text.startswith("---", start):
        return 0
    m = re.compile(r"\n---[ \t]*(?:\r?\n|$)").search(text, start + 3)
    return m.end() if m else 0


def _replacement(text: str, sp: _Span, fm_end: int) -> str:
    """The placeholder; in frontmatter, one that keeps the YAML value a string."""
    token = placeholder(sp.kind)
    if sp.start >= fm_end:
        return token
    line_start = text.rfind("\n", 0, sp.start) + 1
    before = text[line_start : sp.start].rstrip(" \t")
    if not before or before[-1] in ":-[,{?":  # the placeholder would begin a plain scalar
        line_end = text.find("\n", sp.end)
        after = text[sp.end : len(text) if line_end < 0 else line_end].strip()
        if not after or after.startswith("#") or after[0] in ",]}":
            return f"'{token}'"
        return token[1:-1]  # REDACTED:kind: plain text YAML reads as a string
    return token


def redact(text: str, *, allow: Iterable[str] = (), path: str | None = None) -> Redacted:
    """``text`` with every detected secret replaced by its placeholder.

    Only the secret's own characters change (a secret broken over lines
    becomes one placeholder); a text without secrets comes back identical.
    """
    spans = _spans(text, frozenset(allow))
    if not spans:
        return Redacted(text=text)
    fm_end = _frontmatter_end(text)
    out: list[str] = []
    pos = 0
    findings = []
    for sp in spans:
        line, col = _position(text, sp.start)
        findings.append(Finding(kind=sp.kind, line=line, column=col, path=path))
        out.append(text[pos : sp.start])
        out.append(_replacement(text, sp, fm_end))
        pos = sp.end
    out.append(text[pos:])
    return Redacted(text="".join(out), findings=tuple(findings))


def scrub(text: str, *, label: str = "REDACTED") -> str:
    """``text`` with every detected secret replaced by ``[<label>:<kind>]``, whatever
    the policy.

    The one function what sessionkit prints or keeps beside the notes passes
    through: error and usage messages, reports and their ``--json`` form, the
    state files of ``convert`` and ``sync`` and the index page quote a user's
    value (a note's text, a file name) only through it, so they name a
    secret's kind where it was, never its value.  ``label`` says what became
    of the value in the note (``IN CLEAR``: written as is, ``secrets.redact = warn``).
    """
    if not text or not _may_hold(text):
        return text
    spans = _spans(text, frozenset())
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for sp in spans:
        out.append(text[pos : sp.start])
        out.append(f"[{label}:{sp.kind}]")
        pos = sp.end
    out.append(text[pos:])
    return "".join(out)


def scrub_data(data: Any, *, label: str = "REDACTED") -> Any:
    """:func:`scrub` of every string (keys included) in JSON-like ``data`` (a report
    before it is printed as JSON: each value looked at before it is escaped)."""
    if isinstance(data, str):
        return scrub(data, label=label)
    if isinstance(data, dict):
        return {scrub_data(k, label=label): scrub_data(v, label=label) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [scrub_data(v, label=label) for v in data]
    return data


# -- policy and the store choke point ------------------------------------------------------


class Policy(Plain):
    """What a store does with secrets in what it writes.

    Attributes:
        mode: ``"on"`` redact, ``"warn"`` write as is and report, ``"off"`` do not look
            (under ``warn`` and ``off``, remote stores and conversions refuse such a note).
        allow: known-safe values that are never redacted.
    """

    __slots__ = ("allow", "mode")

    def __init__(self, *, mode: str = "on", allow: Iterable[str] = frozenset()) -> None:
        if mode not in MODES:
            raise ValueError(f"redact must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self.allow = frozenset(allow)

    @classmethod
    def from_config(cls, config: Any) -> Policy:
        """From a :class:`~sessionkit.config.Config` (its ``secrets`` settings)."""
        secrets = getattr(config, "secrets", None)
        if secrets is None:
            return cls()
        return cls(mode=secrets.redact, allow=secrets.allow_values())


DEFAULT_POLICY = Policy()
_Vars = tuple["ContextVar[tuple[list[Finding], ...]]", "ContextVar[bool]"]
#: the open collect() blocks' lists and whether a strict() block is open, as context
#: variables made by the first block (until then none is open: a hook that opens none
#: never imports contextvars)
_VARS: list[_Vars] = []


def _vars() -> _Vars:
    if not _VARS:
        import contextvars

        _VARS.append(  # (one append: two threads that both made them use the first)
            (
                contextvars.ContextVar("sessionkit_redaction_collectors", default=()),
                contextvars.ContextVar("sessionkit_redaction_strict", default=False),
            )
        )
    return _VARS[0]


def _collectors() -> tuple[list[Finding], ...]:
    return _VARS[0][0].get() if _VARS else ()


def _strict_block() -> bool:
    return _VARS[0][1].get() if _VARS else False


class _Collect:
    """The context of :func:`collect` (a class: :mod:`contextlib` is not imported here)."""

    def __enter__(self) -> list[Finding]:
        self.found: list[Finding] = []
        self.token = _vars()[0].set((*_collectors(), self.found))
        return self.found

    def __exit__(self, *exc: object) -> None:
        _vars()[0].reset(self.token)


def collect() -> AbstractContextManager[list[Finding]]:
    """Collect every :class:`Finding` the stores redact (or warn about) inside the block."""
    return _Collect()


def relay(findings: Iterable[Finding]) -> None:
    """Hand findings made elsewhere (a worker process of a bulk command) to the
    :func:`collect` blocks open in this one, as if its stores had made them."""
    findings = list(findings)
    for found in _collectors():
        found.extend(findings)


class _Strict:
    """The context of :func:`strict`."""

    def __enter__(self) -> None:
        self.token = _vars()[1].set(True)

    def __exit__(self, *exc: object) -> None:
        _vars()[1].reset(self.token)


def strict() -> AbstractContextManager[None]:
    """Inside the block every store refuses a secret it would write in clear (conversions)."""
    return _Strict()


def _record(store: Any, findings: Sequence[Finding]) -> None:
    log = getattr(store, "redactions", None)
    if isinstance(log, list):
        log.extend(findings)
    for found in _collectors():
        found.extend(findings)


def guard(
    store: Any, path: str, text: str, *, remote: bool | None = None, strict: bool = False
) -> str:
    """The text ``store`` may write to ``path`` under its :class:`Policy`.

    Redacts (``on``), reports (``warn``) or passes (``off``); raises
    :class:`SecretError` when a remote store (``remote``; by default any
    store not on the local disk) or a conversion (``strict``) would write a
    secret in clear.  Findings go to ``store.redactions`` and :func:`collect`.
    """
    if len(text) > 1 << 20 and not text.isascii():
        # a big note whose frontmatter is held wider than its body (an emoji in its
        # title): the body looked at by itself, at its own width (a copy of it, where
        # the detectors' lowered copy of the whole would be as wide as the title)
        from ._lines import narrower_from

        end = _frontmatter_end(text)
        if 0 < end < len(text) and narrower_from(text, end):
            pieces = (text[:end], text[end:])
            if _fenced(pieces):
                done = _guard(store, path, pieces, remote, strict)
                return text if done is pieces else "".join(done)
    return _guard(store, path, (text,), remote, strict)[0]


def guard_pieces(
    store: Any,
    path: str,
    pieces: Sequence[str],
    *,
    remote: bool | None = None,
    strict: bool = False,
) -> tuple[str, ...]:
    """:func:`guard` of the text ``"".join(pieces)``, in pieces.

    A frontmatter ending with its closing fence's line and the body after it
    (:func:`sessionkit.document.parse_pieces`' pieces) are looked at apart: no
    secret spans that line, and the frontmatter's end is where the text's is,
    so a big note is never joined with its frontmatter for it; the findings'
    lines are the text's.  A body in several pieces (cut at line ends) is
    guarded as one text (a secret may span its lines), joined only when a
    piece holds a literal some detector needs (none holds a line end).
    Other pieces are joined and guarded as one.
    """
    pieces = tuple(pieces)
    if len(pieces) > 1 and not _fenced(pieces):
        text = "".join(pieces)
        done = guard(store, path, text, remote=remote, strict=strict)
        return pieces if done is text else (done,)
    if len(pieces) > 2:
        head, body = pieces[0], pieces[1:]
        whole: tuple[str, ...] = (head, "".join(body)) if any(map(_may_hold, body)) else (head,)
        guarded = _guard(store, path, whole, remote, strict)
        if guarded is whole:
            return pieces
        return guarded if len(whole) > 1 else (*guarded, *body)
    return _guard(store, path, pieces, remote, strict)


def _fenced(pieces: tuple[str, ...]) -> bool:
    """Whether ``pieces`` are a frontmatter, up to and with its closing fence, and a
    body that opens no frontmatter of its own (see :func:`guard_pieces`)."""
    if len(pieces) < 2:
        return False
    head = pieces[0]
    return _frontmatter_end(head) == len(head) > 0 and not pieces[1].startswith("---")


def _guard(
    store: Any, path: str, pieces: tuple[str, ...], remote: bool | None, strict: bool
) -> tuple[str, ...]:
    """:func:`guard` of a text in ``pieces``, each redacted by itself (the same
    pieces back when nothing changes)."""
    policy: Policy = getattr(store, "redaction", None) or DEFAULT_POLICY
    if policy.mode == "off" and not (strict or _strict_block()):
        if remote is None:
            remote = _is_remote(store)
        if not remote:
            return pieces
    texts: list[str] = []
    findings: list[Finding] = []
    before = 0  # the lines of the pieces before this one
    for piece in pieces:
        done = redact(piece, allow=policy.allow, path=path)
        texts.append(done.text)
        for f in done.findings:
            findings.append(
                Finding(kind=f.kind, line=f.line + before, column=f.column, path=f.path)
                if before
                else f
            )
        if len(pieces) > 1:
            before += piece.count("\n")
    if not findings:
        return pieces
    if policy.mode == "on":
        _record(store, findings)
        return tuple(texts)
    if remote is None:
        remote = _is_remote(store)
    if remote or strict or _strict_block():
        where = ", ".join(f"line {f.line} ({f.kind})" for f in findings[:5])
        raise SecretError(
            f"refused: the note would carry {len(findings)} secret(s) in clear, at "
            f"{where}, and secrets.redact is {policy.mode!r}",
            path=path,
            line=findings[0].line,
        )
    _record(
        store,
        [
            Finding(kind=f.kind, line=f.line, column=f.column, path=f.path, redacted=False)
            for f in findings
        ],
    )
    return pieces


def _is_remote(store: Any) -> bool:
    # (the storage says: redaction sits below the backends and imports none of them)
    return bool(getattr(getattr(store, "storage", None), "remote", True))


# -- lint --------------------------------------------------------------------------------

#: the lint codes of a secret in a note (error; ``sessionkit lint --fix`` redacts it)
AIWIKI_CODE = "AW020"
BASIC_MEMORY_CODE = "BM007"
#: known-safe values lint does not report (``sessionkit lint`` sets the configured allowlist)
LINT_ALLOW: frozenset[str] = frozenset()


def lint_secrets(data: str | bytes, path: str | None, format: str) -> list[Any]:
    """The secret findings of a note (``AW020`` for aiwiki, ``BM007`` for Basic Memory).

    A note's bytes are first checked for the detectors' literals, so a note
    without any is not decoded or scanned.
    """
    if isinstance(data, bytes):  # (lint's bytes: most notes stop at the screen)
        if not _may_hold_bytes(data):
            return []
        data = data.decode("utf-8", "replace").removeprefix("\ufeff")
    if format.startswith("aiwiki"):
        code = AIWIKI_CODE
    elif format == "basic-memory":
        code = BASIC_MEMORY_CODE
    else:
        return []
    from .diagnostics import Diagnostic, Severity

    return [
        Diagnostic(
            code=code,
            severity=Severity.ERROR,
            line=f.line,
            message=f"a secret ({f.kind}) in the note: `sessionkit lint --fix` redacts it",
            path=path,
            fixable=True,
        )
        for f in find_secrets(data, allow=LINT_ALLOW)
    ]


#: characters from the most to the least common in notes: a literal is looked for at its
#: least common character, which a one-byte search (``memchr``) finds or rules out at once
_COMMON = (
    " etaoinsrhldcu\n-mpfgwybv.,:/`0123456789*#_k()[]x@'\"TASCPDMRIBEFNHLOGW~"
    "jqzUKVYJQXZ=|^$%&+;<>?!\\{}"
)
#: where the seldom characters begin in ``_COMMON``, and where the most common end
_SELDOM, _FREQUENT = _COMMON.index("j"), _COMMON.index("m")
#: (the anchor character, the search of a pattern of the literals anchored there) for
#: the exact literals and for the lowered ones
_Anchored = tuple[tuple["Any", "Any"], ...]
_Prefilter = tuple[_Anchored, _Anchored]
_PREFILTER: dict[type, _Prefilter] = {}


def _rank(ch: str) -> int:
    """How seldom ``ch`` is in a note (characters not in ``_COMMON``: the most seldom)."""
    at = _COMMON.find(ch)
    return len(_COMMON) if at < 0 else at


def _anchored(literals: set[str]) -> dict[str, str]:
    """The literals grouped by an anchor character of theirs, each group one pattern.

    Every pattern begins with its anchor character, so ``re`` searches for that
    literal character first and tries the rest only there (a literal's part
    before its anchor is checked by a lookbehind).  A literal with a seldom
    character (:data:`_SELDOM` on) is anchored there: a text without it (a
    one-byte search) needs no search for it.  The others share as few anchors
    as they can (each a search over the text), none of the most common
    characters (:data:`_FREQUENT`) unless a literal has nothing else: ``re``
    tries the rest of the group at every place its anchor is.
    """
    anchor_of: dict[str, str] = {}
    left: dict[str, set[str]] = {}
    for lit in literals:
        rarest = max(lit, key=_rank)
        if _rank(rarest) >= _SELDOM:
            anchor_of[lit] = rarest
        else:
            usable = {ch for ch in lit if _rank(ch) >= _FREQUENT}
            left[lit] = usable or {rarest}
    while left:
        counts: dict[str, int] = {}
        for chars in left.values():
            for ch in chars:
                counts[ch] = counts.get(ch, 0) + 1
        best = max(counts, key=lambda ch: (counts[ch], _rank(ch)))
        for lit in [lit for lit, chars in left.items() if best in chars]:
            anchor_of[lit] = best
            del left[lit]
    groups: dict[str, list[str]] = {}
    for lit in sorted(literals):
        anchor = anchor_of[lit]
        at = lit.index(anchor)
        behind = f"(?<={re.escape(lit)})" if at else ""
        groups.setdefault(anchor, []).append(re.escape(lit[at + 1 :]) + behind)
    return {
        anchor: re.escape(anchor) + "(?:" + "|".join(sorted(alts, key=len, reverse=True)) + ")"
        for anchor, alts in sorted(groups.items())
    }


def _prefilter_literals() -> tuple[set[str], set[str]]:
    """The detectors' exact and lowered literals, less those another one implies (a
    literal that holds another, or whose lower case holds a lowered one)."""
    exact = {lit for d in _DETECTORS for lit in d[4]}
    lowered = {lit for d in _DETECTORS for lit in d[5]}
    lowered = {w for w in lowered if not any(v != w and v in w for v in lowered)}
    exact = {
        w
        for w in exact
        if not any(v != w and v in w for v in exact) and not any(v in w.lower() for v in lowered)
    }
    return exact, lowered


def _prefilter(kind: type) -> _Prefilter:
    """The detectors' literals as few searches, for ``bytes`` or ``str`` (``kind``):
    (anchor, pattern) pairs for the exact literals and for the lowered ones.

    Made from :data:`_DETECTORS`, so it cannot drift from them.  A literal that
    holds another, or whose lower case holds a lowered one (``private_key_id``
    holds ``private``), is found by that one.  The rest are grouped by their
    least common character (:func:`_anchored`): a text without that character
    (a one-byte search) needs none of the group's patterns.
    """
    done = _PREFILTER.get(kind)
    if done is not None:
        return done
    exact, lowered = _prefilter_literals()

    def compiled(literals: set[str]) -> tuple[tuple[Any, Any], ...]:
        pairs = _anchored(literals).items()
        if kind is str:
            return tuple((a, re.compile(p).search) for a, p in pairs)
        # (the anchor as an int: "b'x' in data" first fails to read b'x' as an int)
        return tuple((ord(a), re.compile(p.encode()).search) for a, p in pairs)

    done = (compiled(exact), compiled(lowered))
    _PREFILTER[kind] = done
    return done


#: texts a process checks literal by literal before it builds the grouped searches
#: (a hook writes one note: building and compiling the groups costs it more than this)
_ONE_BY_ONE = [8]


def _may_hold(data: str | bytes) -> bool:
    """Whether ``data`` holds a literal some detector needs (cheap searches)."""
    if isinstance(data, str) and len(data) > _LOWER_BLOCK:
        # a block of lines at a time (:func:`_line_blocks`): a big note is never lowered
        # whole (a copy of it)
        return any(_may_hold_text(block) for block in _line_blocks(data))
    return _may_hold_text(data)


def _may_hold_text(data: str | bytes) -> bool:
    if not isinstance(data, str):
        return _may_hold_bytes(data)
    if str not in _PREFILTER and _ONE_BY_ONE[0] > 0:
        _ONE_BY_ONE[0] -= 1  # every literal by itself: the same answer as the groups'
        if any(lit in data for d in _DETECTORS for lit in d[4]):
            return True
        text = _lower(data)
        return any(lit in text for d in _DETECTORS for lit in d[5])
    return _searched(data, str)


def _may_hold_bytes(data: bytes) -> bool:
    """:func:`_may_hold_text` of a note's bytes (no decoding: most notes stop here)."""
    return _searched(data, bytes)


def _searched(data: str | bytes, kind: type) -> bool:
    """Whether the exact and the lowered literals' searches (for ``kind``, str or bytes)
    find one in ``data``."""
    exact, lowered = _PREFILTER.get(kind) or _prefilter(kind)
    for anchor, search in exact:
        if anchor in data and search(data) is not None:
            return True
    # lowers ASCII letters as the detectors do (and may find more)
    data = _lower(data) if isinstance(data, str) else data.lower()
    for anchor, search in lowered:  # noqa: SIM110 (a loop: no generator for each note)
        if anchor in data and search(data) is not None:
            return True
    return False
