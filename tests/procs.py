"""What the process-pool tests ask of Linux: the processes this one started."""

from __future__ import annotations

import os
from pathlib import Path


def children() -> set[int]:
    """The processes this one started that are still there (read from ``/proc``)."""
    me = os.getpid()
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == me:
                found.add(int(entry))
    return found
