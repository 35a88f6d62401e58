"""The library API: everything the command line does, as typed functions a notebook can call.

>>> import attrib
>>> traj = attrib.load_log("data/example-algorithm.json")
>>> att = attrib.predict(traj, method="all-at-once", model="mock")        # one log
>>> run = attrib.evaluate(["tests/data/who_and_when"], methods=["random"])  # a batch -> EvalResult
>>> scored = attrib.score(run.directory / "cases.jsonl", "tests/data/who_and_when")
>>> table = attrib.compare([run.directory])                              # -> Comparison

Options are typed: an unknown keyword is an error, never silently ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .chief.export import export as export_graph
from .chief.export import graph_of
from .chief.graph import CausalGraph
from .core.options import MethodOptions, validated
from .evaluation.batch import EvalResult, run_batch
from .evaluation.compare import Comparison, compare_runs
from .evaluation.runner import EvalConfig
from .evaluation.score_file import ScoreResult, score_file
from .llm.client import LLMClient
from .prediction import make_client, predict, predict_async
from .readers import load_log
from .trajectory import Trajectory


def evaluate(paths: Sequence[str | Path], *, methods: Sequence[str] = ("all-at-once",), out: str | Path | None = None,
             cache: bool = True, offline: bool = False, **settings: Any) -> EvalResult:
    """Run ``methods`` over the labelled logs in ``paths`` (resumable run directory ``out``).

    ``settings`` are :class:`~attrib.evaluation.runner.EvalConfig` fields: ``models``, ``base_url``,
    ``ground_truth``, ``runs``, ``seed``, ``limit``, ``concurrency``, ``budget_usd``, ``budget_tokens``,
    ``chief_modules``, ``kb_dir``, ``log_format``.
    """
    config = validated(EvalConfig, paths=[str(p) for p in paths], methods=list(methods), **settings)
    return run_batch(config, Path(out) if out is not None else None, cache=cache, offline=offline)


def score(predictions: str | Path, data: str | Path, *, legacy: bool = False, subset: str | None = None,
          model: str = "unknown", with_ground_truth: bool = True, n_boot: int = 2000, seed: int = 12345,
          labels: str | Path | None = None) -> ScoreResult:
    """Score a predictions file (cases.jsonl, attributions, or official Who&When output) against labelled logs.

    ``labels``: gold labels kept in a separate file (AgentRx, or JSONL of ``{id, agent, step}``)."""
    return score_file(predictions, data, legacy=legacy, subset=subset, model=model,
                      with_ground_truth=with_ground_truth, n_boot=n_boot, seed=seed, labels=labels)


def compare(run_dirs: Sequence[str | Path], *, reference: bool = False, subset: str | None = None,
            by_subset: bool = False, n_boot: int = 2000, seed: int = 12345) -> Comparison:
    """Compare run directories: accuracy with CIs, tolerance, calls, tokens, USD and seconds per case."""
    return compare_runs(run_dirs, reference=reference, subset=subset, by_subset=by_subset, n_boot=n_boot, seed=seed)


def graph(log: Trajectory | str | Path, *, model: str | None = None, base_url: str | None = None,
          client: LLMClient | None = None, with_ground_truth: bool = True, options: MethodOptions | None = None,
          **option_values: Any) -> CausalGraph:
    """Run CHIEF on one log and return its hierarchical causal graph (export it with :func:`export_graph`)."""
    att = predict(log, "chief", model=model, base_url=base_url, client=client, with_ground_truth=with_ground_truth,
                  options=options, **option_values)
    return graph_of(att)


def kb_build(gaia: str | Path | None = None, assistantbench: str | Path | None = None, *,
             kb_dir: str | Path | None = None, force: bool = False) -> Any:
    """Build (or reuse) CHIEF's knowledge base from GAIA / AssistantBench files; returns the KnowledgeBase."""
    from .kb.store import build

    return build(gaia, assistantbench, directory=kb_dir, force=force)


__all__ = ["CausalGraph", "Comparison", "EvalResult", "MethodOptions", "ScoreResult", "compare", "evaluate",
           "export_graph", "graph", "kb_build", "load_log", "make_client", "predict", "predict_async", "score"]
