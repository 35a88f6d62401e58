"""Errors that the CLI turns into one line and a non-zero exit code."""

from __future__ import annotations

from pathlib import Path


class AttribError(Exception):
    """Base class: a problem the user can act on (never shown as a traceback)."""

    exit_code = 1


class InputError(AttribError):
    """A log file (or folder) that cannot be read as a trajectory. Exit code 2."""

    exit_code = 2

    def __init__(self, path: str | Path | None, problem: str):
        self.path = str(path) if path is not None else None
        self.problem = problem
        super().__init__(f"{self.path}: {problem}" if self.path else problem)


class ConfigError(AttribError):
    """A model, endpoint or configuration file that cannot be used. Exit code 2."""

    exit_code = 2


class LLMError(AttribError):
    """An LLM call that failed after all retries, or a cache miss in offline mode."""

    exit_code = 3
