"""Test kits: :mod:`~sessionkit.testing.conformance` (the suite a store backend
inherits) and :mod:`~sessionkit.testing.s3` (a moto S3 server); imports neither
pytest nor moto."""

from __future__ import annotations

__all__ = ["conformance", "s3"]
