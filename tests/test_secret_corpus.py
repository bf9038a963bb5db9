"""The detectors measured on a corpus: planted secrets of every family and look-alikes.

``tests/corpus/secrets/positives.txt`` holds one planted secret a line (the
families of gitleaks' default rules that occur in developer notes, and the
generic ``password =`` / ``token:`` / ``*_password:`` / ``api_key:``
assignments); ``negatives.txt`` holds look-alikes that are no secret (``AKIA``
in prose, a commit sha, an example hash, a UUID, ``token: ~``, code references).
The detection rate must be 100% (each secret gone, the text around it kept)
and the false-alarm rate 0% (each look-alike unchanged): docs/secrets.md
states both figures.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sessionkit.redaction import find_secrets, redact

CORPUS = Path(__file__).parent / "corpus" / "secrets"


class Planted:
    """One corpus line: its family, the text, and the secret in it (``None``: a look-alike)."""

    def __init__(self, family: str, text: str, secret: str | None, before: str, after: str):
        self.family = family
        self.text = text
        self.secret = secret
        self.before = before
        self.after = after

    def __repr__(self) -> str:
        return f"{self.family}: {self.text[:40]}"


def load(name: str) -> list[Planted]:
    """The corpus file ``name`` (``positives.txt`` or ``negatives.txt``), line by line."""
    out = []
    for raw in (CORPUS / name).read_text("utf-8").splitlines():
        if not raw or raw.startswith("#"):
            continue
        family, line = raw.split("\t", 1)
        line = line.replace("⏎", "\n")
        if "⟪" not in line:
            out.append(Planted(family, line, None, line, ""))
            continue
        before, rest = line.split("⟪", 1)
        secret, after = rest.split("⟫", 1)
        secret = secret.replace("¦", "")
        out.append(Planted(family, before + secret + after, secret, before, after))
    return out


POSITIVES = load("positives.txt")
NEGATIVES = load("negatives.txt")


def caught(p: Planted) -> bool:
    """Whether redaction hides ``p``'s secret and keeps the text around it."""
    out = redact(p.text).text
    assert p.secret is not None
    return p.secret not in out and out.startswith(p.before) and out.endswith(p.after)


def test_the_corpus_covers_every_family() -> None:
    families = {p.family for p in POSITIVES}
    for family in (
        "aws-access-key", "aws-secret-key", "github-token", "gitlab-token", "slack-token",
        "slack-webhook", "stripe-key", "gcp-api-key", "gcp-oauth-secret",
        "gcp-service-account-key", "azure-storage-key", "azure-connection-string", "jwt",
        "private-key", "openai-key", "anthropic-key", "huggingface-token", "npm-token",
        "pypi-token", "twilio-key", "sendgrid-key", "digitalocean-token", "shopify-token",
        "heroku-key", "discord-token", "telegram-token", "basic-auth-url", "bearer-token",
        "secret-assignment",
    ):  # fmt: skip
        assert family in families
    assert len(POSITIVES) >= 50 and len(NEGATIVES) >= 30


def test_detection_rate_is_100_and_false_alarm_rate_0() -> None:
    """The figures docs/secrets.md states: every planted secret caught, no look-alike
    changed (a miss or an alarm is named in the failure)."""
    missed = [p for p in POSITIVES if not caught(p)]
    alarms = [p for p in NEGATIVES if redact(p.text).text != p.text or find_secrets(p.text)]
    rate = 100 * (len(POSITIVES) - len(missed)) / len(POSITIVES)
    false = 100 * len(alarms) / len(NEGATIVES)
    print(f"detection {rate:.0f}% of {len(POSITIVES)},", end=" ")
    print(f"false alarms {false:.0f}% of {len(NEGATIVES)}")
    assert (missed, alarms) == ([], [])


@pytest.mark.parametrize("planted", POSITIVES, ids=repr)
def test_each_planted_secret_is_redacted_and_its_name_kept(planted: Planted) -> None:
    assert caught(planted), redact(planted.text).text


@pytest.mark.parametrize("planted", NEGATIVES, ids=repr)
def test_each_look_alike_is_left_alone(planted: Planted) -> None:
    assert redact(planted.text).text == planted.text
