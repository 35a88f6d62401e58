"""Command-line options shared by every command: one name, one meaning, one help text.

``--format`` is always the input log's format; outputs are chosen with ``--to``. ``--kb-dir``,
``--model``, ``--base-url`` and ``--config`` mean the same on every command that takes them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .readers.label_file import LABELS_HELP

LogFormatOpt = Annotated[str, typer.Option("--format", help="Log format (see `attrib show --help`), or 'auto' to detect it by structure.")]
ModelOpt = Annotated[str | None, typer.Option("--model", help="Model name, profile from attrib.toml, 'local' (embedded 135M demo), 'mock' (schema-valid samples, a free dry run) or 'gguf:/path/model.gguf'. Env: ATTRIB_MODEL.")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1. Env: ATTRIB_BASE_URL. Key: ATTRIB_API_KEY or OPENAI_API_KEY.")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", help="attrib.toml with model profiles and prices (default: ./attrib.toml, then the user config dir).")]
KbDirOpt = Annotated[Path | None, typer.Option("--kb-dir", help="CHIEF knowledge-base folder (default: $ATTRIB_CACHE_DIR/kb or the user cache dir, where `attrib kb build` saves).")]
ChiefModulesOpt = Annotated[str, typer.Option("--chief-modules", help="CHIEF ablation: full (default), m1, m1+m2 or m1+m3.")]
NoGroundTruthOpt = Annotated[bool, typer.Option("--no-ground-truth", help="Do not show the correct final answer to the model.")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the LLM answer cache.")]
OfflineOpt = Annotated[bool, typer.Option("--offline", help="Answer only from the LLM answer cache; a miss is an error.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed for sampling and random choices.")]
LabelsOpt = Annotated[Path | None, typer.Option("--labels", help=LABELS_HELP)]
