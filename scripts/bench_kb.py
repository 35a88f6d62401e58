"""Time the knowledge base, CHIEF's deterministic graph evidence and CHIEF's cold start on Who&When.

Prints: embedding-model load time, a forced KB build, a KB load, per-case mean / max seconds
(warm, in this process) of exemplar retrieval, loop_groups and literal_flows over every log
found, then the cold figures, each from a fresh interpreter:

- import times of what the query path may need (numpy, tokenizers, faiss, torch, sentence-transformers);
- one query embedded by sentence-transformers, by the numpy MiniLM path, and from the query cache;
- ``attrib predict`` (All-at-Once, then CHIEF with an empty and with a filled query cache) against a
  zero-latency local mock endpoint: seconds from process start to its first LLM request.
  CHIEF's own pre-LLM work is its figure minus All-at-Once's (interpreter, imports, SDK, log reading).

    python scripts/bench_kb.py [--gaia FILE] [--assistantbench FILE] [--logs DIR] [--dir KB_DIR] [--cold-only]

Defaults read ../shared (relative to the repository root) and build into a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from attrib.chief.evidence import literal_flows, loop_groups  # noqa: E402
from attrib.kb import build, load, retrieve_exemplars  # noqa: E402
from attrib.kb.embed import embed  # noqa: E402
from attrib.kb.queries import QUERY_DIR, embed_query  # noqa: E402
from attrib.readers import iter_log_paths, load_log  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))  # test doubles live under tests/
from mock_answers import make_realistic_responder  # noqa: E402
from mockserver import MockServer  # noqa: E402

SHARED = ROOT.parent / "shared"
QUERY = "How many studio albums were published by Mercedes Sosa between 2000 and 2009 (included)?"
IMPORTS = ("numpy", "tokenizers", "faiss", "torch", "sentence_transformers")


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """Run ``fn`` once; return its result and the wall-clock seconds it took."""
    started = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - started


REPEATS = 3


def fresh(code: str, env: dict[str, str] | None = None) -> float:
    """Seconds printed by ``code`` run in a fresh interpreter on this tree."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    return float(out.stdout.strip().splitlines()[-1])


def spread(values: list[float]) -> str:
    """``'min / median'`` of repeated timings (the minimum is the least disturbed by other load)."""
    return f"{min(values):>9.3f}{statistics.median(values):>9.3f}"


def first_request_seconds(srv: MockServer, log: Path, method: str, kb: Path, cache: Path) -> float:
    """Seconds from spawning ``attrib predict`` to the mock endpoint receiving its first request."""
    srv.reset()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ATTRIB_API_KEY": "bench", "ATTRIB_CACHE_DIR": str(cache)}
    cmd = [sys.executable, "-m", "attrib.cli", "predict", str(log), "--method", method, "--model", "gpt-4o-mini",
           "--base-url", srv.url, "--kb-dir", str(kb), "--no-cache", "--json"]
    started = time.time()
    subprocess.run(cmd, env=env, capture_output=True, check=False, timeout=600)
    chats = [r for r in srv.requests if r.method == "POST"]
    if not chats:
        raise SystemExit(f"attrib predict --method {method} sent no request")
    return chats[0].time - started


def cold(folder: Path, log: Path) -> None:
    """The cold-start figures (see the module docstring)."""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\ncold start, each in a fresh interpreter, {REPEATS} runs (seconds; load average {load} on {os.cpu_count()} cores)")
    print(f"{'':<44}{'min':>9}{'median':>9}")
    timer = "import time; t = time.perf_counter(); {}; print(time.perf_counter() - t)"
    for name in IMPORTS:
        print(f"{'import ' + name:<44}{spread([fresh(timer.format(f'import {name}')) for _ in range(REPEATS)])}")
    st = [fresh(timer.format(f"from attrib.kb.embed import embed_one; embed_one({QUERY!r})")) for _ in range(REPEATS)]
    light = [fresh(timer.format(f"from attrib.kb.queries import embed_query; embed_query({QUERY!r})")) for _ in range(REPEATS)]
    with tempfile.TemporaryDirectory(prefix="attrib-bench-q-") as qdir:
        embed_query(QUERY, Path(qdir))
        hit = [fresh(timer.format(f"from pathlib import Path; from attrib.kb.queries import embed_query; "
                                  f"embed_query({QUERY!r}, Path({qdir!r}))")) for _ in range(REPEATS)]
    print(f"{'one query, sentence-transformers (+ import)':<44}{spread(st)}")
    print(f"{'one query, numpy MiniLM (+ import attrib)':<44}{spread(light)}")
    print(f"{'one query, from the query cache (+ import)':<44}{spread(hit)}")
    runs: dict[str, list[float]] = {"all-at-once": [], "chief, query not cached": [], "chief, query cached": []}
    with tempfile.TemporaryDirectory(prefix="attrib-bench-cache-") as cache, \
            MockServer(make_realistic_responder(), keep_alive=True) as srv:
        for _ in range(REPEATS):
            runs["all-at-once"].append(first_request_seconds(srv, log, "all-at-once", folder, Path(cache)))
            for f in (folder / QUERY_DIR).glob("*.npy"):
                f.unlink()
            runs["chief, query not cached"].append(first_request_seconds(srv, log, "chief", folder, Path(cache)))
            runs["chief, query cached"].append(first_request_seconds(srv, log, "chief", folder, Path(cache)))
    print(f"predict on {log.parent.name}/{log.name}, zero-latency endpoint: process start -> first LLM request")
    base = min(runs["all-at-once"])
    for name, values in runs.items():
        extra = "" if name == "all-at-once" else f"   CHIEF's own pre-LLM work (min - all-at-once min): {min(values) - base:+.3f}"
        print(f"{'  ' + name:<44}{spread(values)}{extra}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gaia", type=Path, default=SHARED / "kb" / "gaia_2023_validation_metadata.jsonl")
    parser.add_argument("--assistantbench", type=Path, default=SHARED / "kb" / "assistant_bench_v1.0_dev.jsonl")
    parser.add_argument("--logs", type=Path, default=SHARED / "datasets" / "who_and_when")
    parser.add_argument("--dir", type=Path, default=None, help="KB folder (default: a temporary folder)")
    parser.add_argument("-k", type=int, default=2, help="exemplars per case")
    parser.add_argument("--cold-only", action="store_true", help="only the cold-start figures (needs --dir with a built KB)")
    parser.add_argument("--cold-log", type=Path, default=None,
                        help="log for the predict timing (default: the first hand-crafted log)")
    args = parser.parse_args(argv)
    log = args.cold_log or next(iter(iter_log_paths([args.logs / "hand-crafted"])))
    if args.cold_only:
        if args.dir is None:
            parser.error("--cold-only needs --dir (a built knowledge base)")
        cold(args.dir, log)
        return 0

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
            for name, value in zip(rows, (r, lg, lf, r + lg + lf), strict=True):
                rows[name].append(value)
            if r + lg + lf > slowest[1]:
                slowest = (f"{case.subset}/{case.id} ({case.n_steps} steps)", r + lg + lf)
        warm_query = timed(lambda: embed_query(QUERY + " (warm)", None))[1]

        print(f"knowledge base: {len(kb)} entries, {kb.directory if args.dir else 'temporary folder'}")
        print(f"{'model load (first embed)':<28}{model_s:>9.3f} s")
        print(f"{'KB build (forced)':<28}{build_s:>9.3f} s")
        print(f"{'KB load':<28}{load_s:>9.3f} s")
        print(f"{'one query, numpy, warm':<28}{warm_query:>9.3f} s")
        print()
        print(f"per case over {len(cases)} logs, warm (seconds; each question embedded by the numpy path, then cached)")
        print(f"{'step':<22}{'mean':>9}{'p95':>9}{'max':>9}")
        for name, values in rows.items():
            ordered = sorted(values)
            p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
            print(f"{name:<22}{statistics.fmean(values):>9.4f}{p95:>9.4f}{max(values):>9.4f}")
        print(f"slowest case: {slowest[0]} {slowest[1]:.3f} s")
        cold(folder, log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
