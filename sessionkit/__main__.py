"""``python -m sessionkit``: the same as the ``sessionkit`` command."""

import sys

from .cli import console

sys.exit(console())
