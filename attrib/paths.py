"""Where attrib keeps files between runs: ``$ATTRIB_CACHE_DIR``, else the user cache folder."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "ATTRIB_CACHE_DIR"


def cache_root() -> Path:
    """The root of the answer cache and the default knowledge base (``kb/`` below it)."""
    env = os.environ.get(CACHE_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("attrib"))
