"""``attrib kb ...``: build and query the retrieval knowledge base from the command line.

``register(app)`` adds the ``kb`` sub-app to the main Typer application. Commands raise
:class:`~attrib.errors.InputError` / :class:`~attrib.errors.ConfigError`; the main CLI
turns those into one-line messages.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ..cli_options import KbDirOpt
from ..errors import ConfigError
from ..text import clip

kb_app = typer.Typer(
    name="kb",
    help="Knowledge base of solved GAIA / AssistantBench tasks (and your own solved runs) used as CHIEF decomposition exemplars.",
    no_args_is_help=True,
)




@kb_app.command("build")
def build_command(
    gaia: Annotated[Path | None, typer.Option("--gaia", help="GAIA metadata JSONL (task_id, Question, the annotator's Steps).")] = None,
    assistantbench: Annotated[Path | None, typer.Option("--assistantbench", help="AssistantBench JSONL (id, task, explanation).")] = None,
    directory: KbDirOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if the sources did not change.")] = False,
    from_runs: Annotated[Path | None, typer.Option("--from-runs", help="Folder of your own solved runs (any log format marked solved, e.g. tau-bench reward 1, or JSONL of {task, solution}): exemplars from your domain.")] = None,
) -> None:
    """Embed the benchmark tasks (and your solved runs) and save the index (reused when the sources are unchanged)."""
    from .store import SOURCE_NAMES, build

    if gaia is None and assistantbench is None and from_runs is None:
        raise ConfigError("attrib kb build needs --gaia FILE, --assistantbench FILE and/or --from-runs DIR")
    started = time.perf_counter()
    kb = build(gaia, assistantbench, directory=directory, force=force, runs=from_runs)
    seconds = time.perf_counter() - started
    parts = ", ".join(f"{kb.sources[name].get('entries', '?')} {name}" for name in SOURCE_NAMES if name in kb.sources)
    action = "rebuilt" if kb.rebuilt else "reused (sources unchanged)"
    console = Console()
    console.print(f"knowledge base {action}: {len(kb)} entries ({parts}) in {seconds:.2f} s", soft_wrap=True)
    console.print(f"saved in {kb.directory}", soft_wrap=True)


@kb_app.command("search")
def search_command(
    text: Annotated[str, typer.Argument(help="Query text (e.g. a task question).")],
    k: Annotated[int, typer.Option("-k", "--top", min=1, help="How many hits to show.")] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Print the hits as JSON instead of a table.")] = False,
    directory: KbDirOpt = None,
) -> None:
    """Show the knowledge-base entries most similar to TEXT."""
    from .store import KnowledgeBase

    kb = KnowledgeBase.default(directory)
    hits = kb.search(text, k)
    if as_json:
        rows = [
            {"score": round(h.score, 4), "source": h.entry.source, "id": h.entry.id, "question": h.entry.question}
            for h in hits
        ]
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    table = Table(title=f"top {len(hits)} of {len(kb)} entries")
    table.add_column("score", justify="right")
    table.add_column("source")
    table.add_column("id", overflow="fold", max_width=14)
    table.add_column("question", overflow="fold")
    for hit in hits:
        table.add_row(f"{hit.score:.3f}", hit.entry.source, hit.entry.id[:12], clip(hit.entry.question, 110))
    Console().print(table)


def register(app: typer.Typer) -> None:
    """Attach the ``kb`` command group to the main application."""
    app.add_typer(kb_app, name="kb")
