"""Time the knowledge base and CHIEF's deterministic graph evidence on Who&When.

Prints: embedding-model load time, a forced KB build, a KB load, and per-case mean / max
seconds of exemplar retrieval, loop_groups and literal_flows over every log found.

    python scripts/bench_kb.py [--gaia FILE] [--assistantbench FILE] [--logs DIR] [--dir KB_DIR]

Defaults read ../shared (relative to the repository root) and build into a temporary folder.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from attrib.chief.evidence import literal_flows, loop_groups
from attrib.kb import build, load, retrieve_exemplars
from attrib.kb.embed import embed
from attrib.readers import iter_log_paths, load_log

SHARED = ROOT.parent / "shared"


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """Run ``fn`` once; return its result and the wall-clock seconds it took."""
    started = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gaia", type=Path, default=SHARED / "kb" / "gaia_2023_validation_metadata.jsonl")
    parser.add_argument("--assistantbench", type=Path, default=SHARED / "kb" / "assistant_bench_v1.0_dev.jsonl")
    parser.add_argument("--logs", type=Path, default=SHARED / "datasets" / "who_and_when")
    parser.add_argument("--dir", type=Path, default=None, help="KB folder (default: a temporary folder)")
    parser.add_argument("-k", type=int, default=2, help="exemplars per case")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="attrib-bench-kb-") as tmp:
        folder = args.dir or Path(tmp) / "kb"
        _, model_s = timed(lambda: embed(["warm up"]))
        kb, build_s = timed(lambda: build(args.gaia, args.assistantbench, directory=folder, force=True))
        loaded, load_s = timed(lambda: load(folder))
        assert loaded is not None

        cases = [load_log(p) for p in iter_log_paths([args.logs])]
        rows: dict[str, list[float]] = {"retrieve_exemplars": [], "loop_groups": [], "literal_flows": [], "total": []}
        slowest = ("", 0.0)
        for case in cases:
            _, r = timed(lambda c=case: retrieve_exemplars(loaded, c.question, c.question_id, k=args.k))
            _, lg = timed(lambda c=case: loop_groups(c))
            _, lf = timed(lambda c=case: literal_flows(c))
            for name, value in zip(rows, (r, lg, lf, r + lg + lf)):
                rows[name].append(value)
            if r + lg + lf > slowest[1]:
                slowest = (f"{case.subset}/{case.id} ({case.n_steps} steps)", r + lg + lf)

    print(f"knowledge base: {len(kb)} entries, {kb.directory if args.dir else 'temporary folder'}")
    print(f"{'model load (first embed)':<28}{model_s:>9.3f} s")
    print(f"{'KB build (forced)':<28}{build_s:>9.3f} s")
    print(f"{'KB load':<28}{load_s:>9.3f} s")
    print()
    print(f"per case over {len(cases)} logs (seconds)")
    print(f"{'step':<22}{'mean':>9}{'p95':>9}{'max':>9}")
    for name, values in rows.items():
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        print(f"{name:<22}{statistics.fmean(values):>9.4f}{p95:>9.4f}{max(values):>9.4f}")
    print(f"slowest case: {slowest[0]} {slowest[1]:.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
