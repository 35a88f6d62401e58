"""Knowledge-base entries from the user's own solved runs (``attrib kb build --from-runs DIR``).

CHIEF shows two solved tasks as decomposition exemplars. The public bases (GAIA, AssistantBench) are
web-research tasks; a team running, say, a τ-bench retail agent gets closer exemplars from its own
solved runs. Every file under DIR is one of:

- a log in any format attrib reads whose run is **marked solved**: ``reward`` >= 1 (τ-bench), or one of
  ``solved``, ``success``, ``resolved``, ``is_correct``, ``correct`` true in its metadata. The entry's
  task is the log's question and its solution is the steps, one line each (``N. AGENT: first line``;
  system prompts left out). Logs not marked solved are skipped and counted;
- a JSON Lines file of ``{task, solution}`` rows (optional ``id``): one entry per row.

Entry ids are the run's task id when it has one (so retrieval's own-task filter drops a solved run of
the very task under attribution), else ``FILE STEM`` or ``FILE STEM:ROW``. Several solved runs of one
task give one entry (the first, in file order). A folder with no solved run is an input error.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..readers import iter_log_paths, load_log, open_lean, split_record
from ..readers.source import records
from ..trajectory import Trajectory
from .entries import KBEntry, Source

SOLVED_FLAGS = ("solved", "success", "resolved", "is_correct", "correct")
SOURCE: Source = "Runs"
#: at most this many step lines, each at most LINE_CHARS characters, make a run's solution
MAX_LINES = 40
LINE_CHARS = 160


class RunsReport:
    """What reading a runs folder found: entries, and how many files were skipped and why."""

    def __init__(self) -> None:
        self.entries: list[KBEntry] = []
        self.unsolved: int = 0
        self.duplicates: int = 0


def solved(traj: Trajectory) -> bool:
    """Whether the run's final answer is marked correct (see the module docstring)."""
    meta = traj.metadata
    reward = meta.get("reward")
    if isinstance(reward, (int, float)) and not isinstance(reward, bool) and reward >= 1:
        return True
    return any(meta.get(flag) is True for flag in SOLVED_FLAGS)


def solution_text(traj: Trajectory) -> str:
    """The run's steps as numbered ``AGENT: first line`` lines (system prompts left out), capped."""
    lines: list[str] = []
    for step in traj.steps:
        if step.role in ("system", "developer") or step.agent == "system":
            continue
        first = next((ln.strip() for ln in step.content.splitlines() if ln.strip()), "")
        first = first if len(first) <= LINE_CHARS else first[: LINE_CHARS - 3].rstrip() + "..."
        lines.append(f"{len(lines) + 1}. {step.agent}: {first}")
        if len(lines) == MAX_LINES:
            lines.append(f"... ({traj.n_steps - step.index - 1} more steps)")
            break
    return "\n".join(lines)


def _task_rows(value: Any) -> list[dict[str, Any]] | None:
    """The rows of a ``{task, solution}`` JSON Lines file, or None when ``value`` is not one."""
    if isinstance(value, list) and value and all(
            isinstance(r, dict) and isinstance(r.get("task"), str) and isinstance(r.get("solution"), str)
            for r in value):
        return value
    return None


def read_runs(directory: str | Path) -> RunsReport:
    """Entries of every solved run and ``{task, solution}`` row under ``directory``."""
    folder = Path(directory)
    if not folder.is_dir():
        raise InputError(folder, "no such directory" if not folder.exists() else "not a directory")
    report = RunsReport()
    seen: set[str] = set()
    for path in iter_log_paths([folder]):
        rows = _task_rows(records(open_lean(path))) if path.suffix.lower() == ".jsonl" else None
        found = _row_entries(path, rows) if rows is not None else _log_entries(path, report)
        for entry in found:
            if entry.id in seen:
                report.duplicates += 1
                continue
            seen.add(entry.id)
            report.entries.append(entry)
    if not report.entries:
        raise InputError(folder, f"holds no solved run ({report.unsolved} logs not marked solved: "
                                 "reward >= 1 or solved/success true), and no {task, solution} JSONL")
    return report


def _row_entries(path: Path, rows: list[dict[str, Any]]) -> Iterable[KBEntry]:
    for i, row in enumerate(rows, start=1):
        if not row["task"].strip():
            raise InputError(path, f"line {i}: empty task")
        ident = str(row["id"]).strip() if isinstance(row.get("id"), (str, int)) and str(row["id"]).strip() \
            else f"{path.stem}:{i}"
        yield KBEntry.make(id=ident, source=SOURCE, question=row["task"], guide=row["solution"])


def _log_entries(path: Path, report: RunsReport) -> list[KBEntry]:
    traj = load_log(path)
    if not solved(traj):
        report.unsolved += 1
        return []
    if not traj.question.strip():
        raise InputError(path, "solved run without a task (question) to retrieve it by")
    ident = traj.question_id or traj.id
    return [KBEntry.make(id=ident, source=SOURCE, question=traj.question, guide=solution_text(traj))]


def folder_sha256(directory: str | Path) -> str:
    """One digest of a folder's log files: their relative paths and bytes (what a rebuild depends on)."""
    folder = Path(directory)
    digest = hashlib.sha256()
    logs = dict.fromkeys(split_record(p)[0] for p in iter_log_paths([folder]))  # records of a file: once
    for log in logs:  # a log is a file, or a task folder (TraceElephant) whose files are hashed in order
        for path in sorted(log.rglob("*")) if log.is_dir() else [log]:
            if path.is_file():
                digest.update(str(path.relative_to(folder)).encode() + b"\0")
                digest.update(path.read_bytes())
    return digest.hexdigest()
