"""``python -m sessionkit``: the same as the ``sessionkit`` command."""

import sys

from .cli import main

sys.exit(main([sys.argv[0], *sys.argv[1:]]))
