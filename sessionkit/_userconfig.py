"""Where the user configuration file is: platformdirs' rule written out where it is
plain (Linux, BSD, macOS), platformdirs itself anywhere else."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["APP", "user_config_file"]

#: the application folder's name
APP = "sessionkit"


def _config_dir(env: Mapping[str, str]) -> str | None:
    """platformdirs' ``user_config_dir(APP)`` where the rule is plain, else ``None``."""
    if sys.platform not in ("linux", "darwin") and not sys.platform.startswith(
        ("freebsd", "openbsd", "netbsd")
    ):
        return None
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg.startswith("/"):  # (an absolute path; anything else is not used)
        return os.path.join(xdg, APP)
    home = env.get("HOME")
    if not home or not home.startswith("/"):
        return None  # (platformdirs then asks the password database)
    home = home.rstrip("/")
    base = "Library/Application Support" if sys.platform == "darwin" else ".config"
    return os.path.join(f"{home}/{base}", APP)


def user_config_file(env: Mapping[str, str] | None = None) -> str:
    """The user file: ``$SESSIONKIT_CONFIG``, else ``<user config dir>/sessionkit/config.toml``."""
    env = os.environ if env is None else env
    explicit = env.get("SESSIONKIT_CONFIG")
    if explicit:
        return os.path.expanduser(explicit)
    folder = _config_dir(env) if env is os.environ else None
    if folder is None:
        import platformdirs

        folder = platformdirs.user_config_dir(APP)
    return os.path.join(folder, "config.toml")
