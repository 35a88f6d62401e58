"""Prompt templates are data: files in ``prompts/`` (shipped inside the wheel as ``attrib/prompts``).

Templates use ``$name`` placeholders (``string.Template``), so braces in logs and
JSON need no escaping. A ``.txt`` file holds one message; its first line may be
``# system`` or ``# user`` (default user). Blocks shared by several prompts live in
their own files and are included with ``$include:name``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from string import Template

from .errors import ConfigError

_INCLUDE = re.compile(r"^\$include:([\w\-.]+)\s*$", re.M)


def prompts_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "prompts", here.parent / "prompts"):
        if candidate.is_dir():
            return candidate
    raise ConfigError("prompt templates not found (expected attrib/prompts or ./prompts)")


@cache
def template(name: str) -> str:
    path = prompts_dir() / f"{name}.txt"
    if not path.is_file():
        raise ConfigError(f"{path}: prompt template missing")
    text = path.read_text(encoding="utf-8")
    if text.startswith("# "):
        text = text.split("\n", 1)[1] if "\n" in text else ""
    return _INCLUDE.sub(lambda m: template(m.group(1)), text).strip()


def render(name: str, **values: object) -> str:
    return Template(template(name)).substitute({k: str(v) for k, v in values.items()})
