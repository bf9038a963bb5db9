"""Credentials kept out of notes: detection and redaction of secret-shaped values.

Every write of a built-in store passes its text through :func:`guard` (the one
choke point, :class:`~sessionkit.backends._filestore.FileStore`): each detected
secret is replaced by a stable placeholder (``[REDACTED:aws-access-key]``) before
the bytes leave the process, and only those bytes change.

What is detected (:data:`KINDS`): AWS access keys and secret keys, GCP API
keys, OAuth tokens and service-account key ids, Azure storage account keys
and client secrets, GitHub, GitLab, Slack and Stripe tokens, Slack webhook
URLs, private key blocks, JWTs, passwords in URLs (``https://user:pw@host``)
and ``password=`` / ``token:`` style assignments whose value looks random
(at least 8 characters, mixed, and high in entropy).  A token broken over
two lines (a hard wrap, a folded YAML value) is found too.

The patterns are this module's own regular expressions, run only on a text
holding one of their literals (one matcher: see docs/secrets.md for why not
``detect-secrets``).

Policy (:class:`Policy`, configuration ``secrets.redact`` and ``secrets.allow``):
``on`` (default) redacts; ``warn`` writes the text as it is and reports what
it found; ``off`` does not look.  Under ``warn`` and ``off`` a write to a
remote store (the caller says which: ``remote=``), and every conversion,
refuses a note that carries a secret (:class:`SecretError`; nothing is
written for that note).
"""

from __future__ import annotations

import re
from contextvars import ContextVar

from ._lazyre import lazy
from ._plain import Plain
from .errors import StoreError
from .text.grammar import FENCE, is_fence

TYPE_CHECKING = False
if TYPE_CHECKING:  # (light to import: the hooks redact what they write on every run)
    from collections.abc import Iterable, Iterator, Sequence
    from contextlib import AbstractContextManager
    from typing import Any

__all__ = [
    "AIWIKI_CODE", "BASIC_MEMORY_CODE", "KINDS", "MODES", "Finding", "Policy", "Redacted",
    "SecretError", "collect", "find_secrets", "guard", "guard_pieces", "lint_secrets",
    "placeholder", "redact", "relay", "scrub", "scrub_data", "strict",
]  # fmt: skip

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
# text holding one of its literals.
_E = r"(?![A-Za-z0-9_])"  # no token character after
_TOKEN, _WORD = "token", "word"  # no letter, digit (or underscore, for token) before
_ALONE = "alone"  # a value with no prefix of its own: on the lines as they are, key-like
_Row = tuple[str, str, int, str | None, tuple[str, ...], tuple[str, ...]]


def _d(kind: str, pattern: str, lit: str = "", low: str = "", before: str | None = _TOKEN) -> _Row:
    """A detector row; ``lit`` and ``low`` are literals separated by ``|``."""
    lits, lows = (tuple(s.split("|")) if s else () for s in (lit, low))
    return (kind, pattern, 0 if kind == "private-key" else 1, before, lits, lows)


_DETECTORS: tuple[_Row, ...] = (
    _d(
        "private-key",
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:\r?\n[A-Za-z0-9+/=:, -]+)*)",
        "PRIVATE KEY",
        before=None,
    ),
    _d(
        "aws-access-key",
        r"((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})" + _E,
        "AKIA|ASIA|ABIA|ACCA|A3T",
    ),
    _d(  # (it needs "aws" too: "secret" is the literal secret-assignment has)
        "aws-secret-key",
        r"(?i)aws[A-Za-z0-9_ .-]{0,20}?secret[A-Za-z0-9_ .-]{0,20}?[\"']?\s*[:=]\s*[\"']?"
        r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
        low="secret",
        before=None,
    ),
    _d("gcp-api-key", r"(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])", "AIza"),
    _d("gcp-oauth-token", r"(ya29\.[0-9A-Za-z_-]{20,})", "ya29."),
    _d(
        "gcp-service-account-key",
        r"\"private_key_id\"\s*:\s*\"([0-9a-f]{40})\"",
        "private_key_id",
        before=None,
    ),
    _d(
        "azure-storage-key",
        r"(?i)(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{40,86}={0,2})(?![A-Za-z0-9+/=])",
        low="accountkey|sharedaccesskey",
        before=None,
    ),
    _d("azure-client-secret", r"([A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34})" + _E, "Q~"),
    _d("azure-sas-token", r"(?i)[?&]sig=([A-Za-z0-9%+/]{40,}(?:%3D|=)*)", low="sig=", before=None),
    _d(
        "github-token",
        r"((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255})" + _E,
        "ghp_|gho_|ghu_|ghs_|ghr_",
    ),
    _d("github-token", r"(github_pat_[A-Za-z0-9_]{60,255})" + _E, "github_pat_"),
    _d(
        "gitlab-token",
        r"(gl(?:pat|dt|ptt|rt|soat|cbt|imt|oas|agent|ffct)-[0-9A-Za-z_-]{20,})",
        "glpat-|gldt-|glptt-|glrt-|glsoat-|glcbt-|glimt-|gloas-",
    ),
    _d("slack-token", r"(xox[abposre]-[0-9A-Za-z][0-9A-Za-z-]{8,250}[0-9A-Za-z])", "xox"),
    _d(
        "slack-webhook",
        r"(https://hooks\.slack\.com/(?:services|workflows)/T[0-9A-Z]+/[0-9A-Za-z/]{20,})",
        "://hooks.slack.com",
        before=None,
    ),
    _d("stripe-key", r"((?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,247})" + _E, "_live_|_test_"),
    _d("gcp-oauth-secret", r"(GOCSPX-[A-Za-z0-9_-]{28})(?![A-Za-z0-9_-])", "GOCSPX-"),
    _d("anthropic-key", r"(sk-ant-(?:api|admin|sid)\d\d-[A-Za-z0-9_-]{20,300})" + _E, "sk-ant-"),
    _d(
        "openai-key",
        r"(sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,300}"
        r"|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|sk-[A-Za-z0-9]{48})" + _E,
        "sk-",
    ),
    _d("huggingface-token", r"((?:hf|api_org)_[A-Za-z]{30,40})" + _E, "hf_|api_org_"),
    _d("npm-token", r"(npm_[A-Za-z0-9]{36})" + _E, "npm_"),
    _d("pypi-token", r"(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})", "pypi-AgEI"),
    _d("twilio-key", r"(SK[0-9a-fA-F]{32})" + _E, "SK"),
    _d("sendgrid-key", r"(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])", "SG."),
    _d("digitalocean-token", r"(do[opr]_v1_[a-f0-9]{64})" + _E, "dop_v1_|doo_v1_|dor_v1_"),
    _d(
        "shopify-token", r"(shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})" + _E, "shpat_|shpca_|shppa_|shpss_"
    ),
    _d("heroku-key", r"(HRKU-[A-Za-z0-9_-]{60})(?![A-Za-z0-9_-])", "HRKU-"),
    _d(
        "heroku-key",
        r"(?i)heroku[A-Za-z0-9_ .:=\"'-]{0,40}?"
        r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![0-9a-f-])",
        low="heroku",
        before=_WORD,
    ),
    _d(  # a bot token has no prefix of its own: looked for in a note that names Discord
        "discord-token",
        r"([MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})(?![A-Za-z0-9_-])",
        low="discord",
    ),
    _d(
        "discord-webhook",
        r"(https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,})",
        "/api/webhooks/",
        before=None,
    ),
    _d("telegram-token", r"(\d{8,10}:AA[A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])", ":AA"),
    _d(  # an AWS secret key on its own (after the key id) in a note that names AWS
        "aws-secret-key",
        r"(?<![A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        low="aws",
        before=_ALONE,
    ),
    _d("jwt", r"(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)", "eyJ"),
    _d("basic-auth-url", r"://[^\s/?#@:\"'<>]{1,100}:([^\s/?#@\"'<>]{1,200})@", "://", before=None),
    _d("bearer-token", r"(?i)bearer[ \t]+([A-Za-z0-9._~+/-]{20,500}=*)", low="bearer", before=None),
    _d(
        "secret-assignment",
        r"(?i)(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|access[_-]?key"
        r"|private[_-]?key|auth|credentials?)"
        r"(?:[_.-][a-z0-9]+){0,3}[\"']?[ \t]*(:=|=>|:|=)[ \t]*",
        low="pass|pwd|secret|token|api|access|private|auth|credential",
        before=_WORD,
    ),
)

KINDS: tuple[str, ...] = tuple(dict.fromkeys(d[0] for d in _DETECTORS))

#: a detector compiled, its literals as bytes (looked for in the text's UTF-8)
_Detector = tuple[str, "re.Pattern[str]", int, str | None, tuple[bytes, ...], tuple[bytes, ...]]
_COMPILED: list[_Detector] = []


def _compiled() -> list[_Detector]:
    if not _COMPILED:
        _COMPILED[:] = [
            (
                k,
                re.compile(p, re.S),
                g,
                b,
                tuple(x.encode() for x in lit),
                tuple(map(str.encode, low)),
            )
            for k, p, g, b, lit, low in _DETECTORS
        ]
    return _COMPILED


def _utf8(text: str) -> bytes:
    """``text``'s UTF-8, where an ASCII literal is found exactly where the text has it (no
    byte of a longer character is ASCII), and at memchr speed whatever the text's width."""
    return text.encode("utf-8", "surrogatepass")


_ASSIGNMENT = "secret-assignment"
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
#: characters lowered at once by :func:`_lower` (issue #23: a big note is never lowered whole)
_LOWER_BLOCK = 1 << 16


def _lower(text: str) -> str:
    """``text.lower()``; a big text that is not ASCII lowered a block of lines at a time
    (``str.lower`` fills 12 bytes a character for it)."""
    if text.isascii() or len(text) <= _LOWER_BLOCK:
        return text.lower()
    return "".join([block.lower() for block in _line_blocks(text)])


def _line_blocks(text: str) -> Iterator[str]:
    """``text`` in blocks of about :data:`_LOWER_BLOCK` characters, each cut after a line
    break (no character lowers differently for what lies past one, no literal holds one)."""
    start, n = 0, len(text)
    while start < n:
        cut = text.find("\n", start + _LOWER_BLOCK) + 1 or n
        yield text[start:cut]
        start = cut


def _ascii_lower(text: str) -> str:
    """``text`` with its ASCII letters lowered, every other character where it was
    (``str.lower`` when that keeps every place and makes no ASCII ``k`` of U+212A)."""
    if text.isascii():
        return text.lower()
    low = _lower(text)
    if len(low) == len(text) and low.count("k") == text.count("k") + text.count("K"):
        return low
    return text.translate(_ASCII_LOWER)


def _matches(
    view: str, lower: str, pattern: re.Pattern[str], keywords: tuple[str, ...] | None
) -> Iterator[re.Match[str]]:
    """``pattern``'s matches; with ``keywords``, tried only where one of them starts
    (an alternation of words is slow in ``re``)."""
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
    from math import log2  # (a hook that meets no assignment never imports it)

    n = len(value)
    return -sum(c / n * log2(c / n) for c in map(value.count, dict.fromkeys(value)))


# words, file names and paths, dates and times: assigned values that are not credentials
_NOT_RANDOM = lazy(
    r"(?i)[a-z]+(?:[_-][a-z]+)*"
    r"|[\w./~-]*\.(?:md|txt|json|ya?ml|toml|ini|cfg|py|js|ts|sh|env|pem|key|crt|log)"
    r"|\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?"
)
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


def _key_like(value: str) -> bool:
    """Whether a prefix-less value (:data:`_ALONE`) looks like a key: cases and digits
    mixed (a hex sha has no capitals) and high in entropy (not words run together)."""
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and sum(c.isdigit() for c in value) >= 2
        and _entropy(value) >= 4.2
    )


_QUOTES = "\"'`"


def _assigned(view: str, at: int, sep: str) -> tuple[int, int]:
    """The span of the value assigned at ``at``: quoted, to its closing quote on the line; bare,
    to the first blank (for ``=`` also ``;``, ``,``, ``&``), trailing brackets and commas off."""
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
            name: getattr(self, name) for name in ("path", "line", "column", "kind", "redacted")
        }


_Span = tuple[int, int, str]  # (start, end, kind)

# kinds looked for only on the lines as they are (no fixed shape, or multi-line already)
_LINE_KINDS = frozenset({"private-key", "secret-assignment", "bearer-token", "basic-auth-url"})
_JOIN = lazy(r"(?<=[A-Za-z0-9+/=_.-])\r?\n[ \t>]*(?=[A-Za-z0-9+/=_.-])")


def _spans(text: str, allow: frozenset[str]) -> list[_Span]:
    """Secret spans in ``text``, sorted, overlaps merged."""
    in_text = _present(_utf8(text))
    if not any(in_text):  # no detector's literal: none of them would run
        return []
    found: list[_Span] = []
    seen: set[tuple[str, int]] = set()  # (kind, start) of every match on the lines as they are

    def look(view: str, where: Any, kinds: Any = None) -> set[str]:
        """Run the detectors whose literals ``view`` holds; returns the kinds that ran."""
        present, present_low = in_text if view is text else _present(_utf8(view))
        ran: set[str] = set()
        for kind, pattern, group, rule, literals, lowered in _compiled():
            if kinds is not None and (kind in kinds or rule == _ALONE):
                continue
            if present.isdisjoint(literals) and present_low.isdisjoint(lowered):
                continue
            ran.add(kind)
            keywords = None
            if kind == _ASSIGNMENT:  # (str offsets: looked for in the text lowered)
                keywords = tuple(word.decode() for word in lowered)
            for m in _matches(view, _ascii_lower(view) if keywords else "", pattern, keywords):
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

    ran = look(text, lambda s, e, k: (s, e, k))
    # a token broken over lines: look again with those line breaks taken out, and keep
    # what crosses a removed break and overlaps nothing found on the lines as they are
    # (only when a detector of a fixed shape ran: its literal begins the token)
    if not ran - _LINE_KINDS:
        return _merged(found)
    from array import array

    # each removed break's place in the joined text and the characters removed up to it
    cut_at, removed_upto = array("q"), array("q")
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
            return (start, stop, k)

        look(_JOIN.sub("", text), crossing, _LINE_KINDS)
    return _merged(found)


def _merged(found: list[_Span]) -> list[_Span]:
    """Spans sorted, overlapping ones merged (the first one's kind); an assigned value gives way
    to a fixed-shape secret it overlaps (``x-access-token:ghp_…@github.com``: the token)."""
    shaped = [sp for sp in found if sp[2] != _ASSIGNMENT]
    if shaped and len(shaped) < len(found):
        import bisect

        shaped = _merged(shaped)
        starts = [sp[0] for sp in shaped]
        kept = []
        for sp in found:
            if sp[2] != _ASSIGNMENT:
                continue
            i = bisect.bisect_left(starts, sp[1])  # the shaped spans starting before its end
            if not (i and shaped[i - 1][1] > sp[0]):
                kept.append(sp)
        found = shaped + kept
    found.sort(key=lambda sp: (sp[0], -sp[1]))
    merged: list[_Span] = []
    for sp in found:
        if merged and sp[0] < merged[-1][1]:
            last = merged[-1]
            if sp[1] > last[1]:
                merged[-1] = (last[0], sp[1], last[2])
            continue
        merged.append(sp)
    return merged


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def find_secrets(text: str, *, allow: Iterable[str] = (), path: str | None = None) -> list[Finding]:
    """Every secret-shaped value in ``text`` (values in ``allow`` excepted), in order."""
    return [
        Finding(kind=kind, line=line, column=col, path=path)
        for start, _, kind in _spans(text, frozenset(allow))
        for line, col in (_position(text, start),)
    ]


class Redacted(Plain):
    """The result of :func:`redact`: the new text and what was replaced."""

    __slots__ = ("findings", "text")

    def __init__(self, *, text: str, findings: tuple[Finding, ...] = ()) -> None:
        self.text = text
        self.findings = findings


def _frontmatter_end(text: str) -> int:
    """Offset just past the closing frontmatter fence (0 when there is none), by the
    grammar's fence rule (``grammar.is_fence``: ``----`` opens no frontmatter)."""
    start = 1 if text.startswith("\ufeff") else 0
    first = text.find("\n", start) + 1
    if not first or not is_fence(text[start:first]):
        return 0
    at = text.find("\n" + FENCE, first - 1)
    while at >= 0:
        end = text.find("\n", at + 1) + 1 or len(text)
        if is_fence(text[at + 1 : end]):
            return end
        at = text.find("\n" + FENCE, at + 1)
    return 0


def _replacement(text: str, start: int, end: int, kind: str, fm_end: int) -> str:
    """The placeholder; in frontmatter, one that keeps the YAML value a string."""
    token = placeholder(kind)
    if start >= fm_end:
        return token
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start].rstrip(" \t")
    if not before or before[-1] in ":-[,{?":  # the placeholder would begin a plain scalar
        line_end = text.find("\n", end)
        after = text[end : len(text) if line_end < 0 else line_end].strip()
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
    for start, end, kind in spans:
        line, col = _position(text, start)
        findings.append(Finding(kind=kind, line=line, column=col, path=path))
        out += (text[pos:start], _replacement(text, start, end, kind, fm_end))
        pos = end
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
    spans = _spans(text, frozenset()) if text else []
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end, kind in spans:
        out += (text[pos:start], f"[{label}:{kind}]")
        pos = end
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
#: the open collect() blocks' lists, and whether a strict() block is open
_COLLECTORS: ContextVar[tuple[list[Finding], ...]] = ContextVar(
    "sessionkit_redaction_collectors", default=()
)
_STRICT: ContextVar[bool] = ContextVar("sessionkit_redaction_strict", default=False)


class _Block:
    """The context of :func:`collect` (``found``) or :func:`strict` (``found is None``)."""

    def __init__(self, found: list[Finding] | None) -> None:
        self.found = found

    def __enter__(self) -> Any:
        if self.found is None:
            self.token: Any = _STRICT.set(True)
        else:
            self.token = _COLLECTORS.set((*_COLLECTORS.get(), self.found))
        return self.found

    def __exit__(self, *exc: object) -> None:
        (_STRICT if self.found is None else _COLLECTORS).reset(self.token)


def collect() -> AbstractContextManager[list[Finding]]:
    """Collect every :class:`Finding` the stores redact (or warn about) inside the block."""
    return _Block([])


def relay(findings: Iterable[Finding]) -> None:
    """Hand findings made elsewhere (a worker process of a bulk command) to the
    :func:`collect` blocks open in this one, as if its stores had made them."""
    findings = list(findings)
    for found in _COLLECTORS.get():
        found.extend(findings)


def strict() -> AbstractContextManager[None]:
    """Inside the block every store refuses a secret it would write in clear (conversions)."""
    return _Block(None)


def _record(store: Any, findings: Sequence[Finding]) -> None:
    log = getattr(store, "redactions", None)
    if isinstance(log, list):
        log.extend(findings)
    for found in _COLLECTORS.get():
        found.extend(findings)


def guard(store: Any, path: str, text: str, *, remote: bool = True, strict: bool = False) -> str:
    """The text ``store`` may write to ``path`` under its :class:`Policy`.

    Redacts (``on``), reports (``warn``) or passes (``off``); raises
    :class:`SecretError` when a write to a remote store (the caller says:
    ``remote``, by default a remote one) or a conversion (``strict``) would
    carry a secret in clear.  Findings go to ``store.redactions`` and :func:`collect`.
    """
    if len(text) > 1 << 20 and not text.isascii():
        # a big note whose frontmatter is wider than its body (an emoji in its title): the
        # body looked at by itself, at its own width
        from ._lines import narrower_from

        end = _frontmatter_end(text)
        if 0 < end < len(text) and narrower_from(text, end):
            pieces = (text[:end], text[end:])
            if _fenced(pieces):
                done = _guard(store, path, pieces, remote, strict)
                return text if done is pieces else "".join(done)
    return _guard(store, path, (text,), remote, strict)[0]


def guard_pieces(
    store: Any, path: str, pieces: Sequence[str], *, remote: bool = True, strict: bool = False
) -> tuple[str, ...]:
    """:func:`guard` of the text ``"".join(pieces)``, in pieces.

    A frontmatter ending with its closing fence's line and the body after it
    (:func:`sessionkit.document.parse_pieces`' pieces) are looked at apart: no
    secret spans that line, so a big note is never joined with its frontmatter
    for it; the findings' lines are the text's.  A body in several pieces (cut
    at line ends) is guarded as one text (a secret may span its lines), joined
    only when a piece holds a literal some detector needs.  Other pieces are
    joined and guarded as one.
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
    return _frontmatter_end(head) == len(head) > 0 and not pieces[1].startswith(FENCE)


def _guard(
    store: Any, path: str, pieces: tuple[str, ...], remote: bool, strict: bool
) -> tuple[str, ...]:
    """:func:`guard` of a text in ``pieces``, each redacted by itself (the same
    pieces back when nothing changes)."""
    policy: Policy = getattr(store, "redaction", None) or DEFAULT_POLICY
    refuse = remote or strict or _STRICT.get()
    if policy.mode == "off" and not refuse:
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
    if refuse:
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


# -- lint --------------------------------------------------------------------------------

#: the lint codes of a secret in a note (error; ``sessionkit lint --fix`` redacts it)
AIWIKI_CODE = "AW020"
BASIC_MEMORY_CODE = "BM007"
#: known-safe values lint does not report (``sessionkit lint`` sets the configured allowlist)
LINT_ALLOW: frozenset[str] = frozenset()


def lint_secrets(data: str | bytes, path: str | None, format: str) -> list[Any]:
    """The secret findings of a note (``AW020`` for aiwiki, ``BM007`` for Basic Memory)."""
    if format.startswith("aiwiki"):
        code = AIWIKI_CODE
    elif format == "basic-memory":
        code = BASIC_MEMORY_CODE
    else:
        return []
    if isinstance(data, bytes):
        # (the literals are ASCII: the bytes hold one where their text does, and most
        # notes hold none, so are never decoded here)
        if not any(_present(data)):
            return []
        data = data.decode("utf-8", "replace").removeprefix("\ufeff")
    findings = find_secrets(data, allow=LINT_ALLOW)
    if not findings:
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
        for f in findings
    ]


#: characters from the most to the least common in notes (a literal is looked for only
#: where its least common one is, a one-byte search)
_COMMON = (
    " etaoinsrhldcu\n-mpfgwybv.,:/`0123456789*#_k()[]x@'\"TASCPDMRIBEFNHLOGW~"
    "jqzUKVYJQXZ=|^$%&+;<>?!\\{}"
)


def _rank(ch: str) -> int:
    """How seldom ``ch`` is in a note (a character not in ``_COMMON``: the most seldom)."""
    at = _COMMON.find(ch)
    return len(_COMMON) if at < 0 else at


def _literals(lowered: bool) -> tuple[tuple[int, bytes], ...]:
    """The detectors' literals (or lowered literals) as bytes, each with its least common
    character: a text without that character needs no search for it."""
    found = {lit for d in _DETECTORS for lit in (d[5] if lowered else d[4])}
    return tuple((ord(max(lit, key=_rank)), lit.encode()) for lit in sorted(found))


#: (exact, lowered) literals with their anchors, made on first use (import stays light)
_LITERALS: list[tuple[tuple[int, bytes], ...]] = []


def _present(data: bytes) -> tuple[set[bytes], set[bytes]]:
    """The detectors' literals in ``data`` (a text's UTF-8), and their lowered ones in its
    lower case (ASCII letters lowered, as the detectors do)."""
    low = data.lower()
    if _UNSCREENED[0] > 0:
        _UNSCREENED[0] -= 1  # (a hook's few texts: each literal looked for, no screen made)
    else:
        if not _SCREEN:
            _SCREEN[:] = [_anchored(literals) for literals in _screen_literals()]
        exact_screen, lowered_screen = _SCREEN
        if not any(a in data and search(data) for a, search in exact_screen) and not any(
            a in low and search(low) for a, search in lowered_screen
        ):
            return set(), set()  # (most notes: no literal at all, a few anchored searches)
    if not _LITERALS:
        _LITERALS[:] = [_literals(False), _literals(True)]
    exact, lowered = _LITERALS
    return (
        {lit for ch, lit in exact if ch in data and lit in data},
        {lit for ch, lit in lowered if ch in low and lit in low},
    )


#: the anchored searches of :func:`_present`'s first question, made for its 17th text (they
#: cost ~4 ms to make, save ~0.2 ms a text); the texts it still looks at without them
_SCREEN: list[tuple[tuple[int, Any], ...]] = []
_UNSCREENED = [16]
#: where the seldom characters begin in ``_COMMON``, and where the most common end
_SELDOM, _FREQUENT = _COMMON.index("j"), _COMMON.index("m")


def _screen_literals() -> tuple[set[bytes], set[bytes]]:
    """The literals whose presence answers "any literal at all?": one that holds another,
    or whose lower case holds a lowered one, is implied by that one."""
    exact = {lit for _, lit in _literals(False)}
    lowered = {lit for _, lit in _literals(True)}
    lowered = {w for w in lowered if not any(v != w and v in w for v in lowered)}
    exact = {
        w
        for w in exact
        if not any(v != w and v in w for v in exact) and not any(v in w.lower() for v in lowered)
    }
    return exact, lowered


def _anchored(literals: set[bytes]) -> tuple[tuple[int, Any], ...]:
    """The literals grouped by an anchor character, one search each that begins with it
    (``re`` then finds that byte first): a seldom character where a literal has one,
    else as few shared anchors as cover the rest (the part before an anchor is checked
    by a lookbehind)."""
    anchor_of: dict[str, str] = {}
    left: dict[str, set[str]] = {}
    for lit in (x.decode() for x in literals):
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
    for lit in sorted(anchor_of):
        anchor = anchor_of[lit]
        at = lit.index(anchor)
        behind = f"(?<={re.escape(lit)})" if at else ""
        groups.setdefault(anchor, []).append(re.escape(lit[at + 1 :]) + behind)
    return tuple(
        (
            ord(anchor),
            re.compile(
                (
                    re.escape(anchor) + "(?:" + "|".join(sorted(alts, key=len, reverse=True)) + ")"
                ).encode()
            ).search,
        )
        for anchor, alts in sorted(groups.items())
    )


def _may_hold(text: str) -> bool:
    """Whether ``text`` holds a literal some detector needs."""
    return any(_present(_utf8(text)))
