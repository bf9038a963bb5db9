"""Test kits for sessionkit extensions.

* :mod:`sessionkit.testing.conformance` — :class:`StoreConformance`, a pytest
  suite a store backend inherits by providing one ``store`` fixture.
* :mod:`sessionkit.testing.s3` — :func:`moto_s3`, a real S3 endpoint (moto's
  server on loopback) for tests that go through s3fs over HTTP.

Importing this package imports neither pytest nor moto.
"""

from __future__ import annotations

__all__ = ["conformance", "s3"]
