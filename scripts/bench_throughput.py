"""Throughput of `attrib evaluate`: all-at-once over every log against a mock endpoint that answers after a fixed latency.

Ideal time = cases x latency / concurrency. The script times the whole command in a subprocess and
reports two ratios to the ideal: the span from the first request the endpoint receives to the last
answer it sends (what concurrency and per-call overhead decide; process start-up and the summary
fall outside it), and (wall - one-case run) / ideal, where the one-case run over ONE log stands for
the start-up cost (imports, SDK and tokenizer loading, run directory, summary).  Usage:
    python scripts/bench_throughput.py [--data ../shared/datasets/who_and_when] [--latency 0.2] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attrib.readers import iter_log_paths

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # test doubles live under tests/
from mockserver import MockServer  # noqa: E402


def first_valid_answer(body: dict) -> str:
    """A valid all-at-once answer read off the request's schema, without hashing the prompt (keeps the server cheap)."""
    props = body["response_format"]["json_schema"]["schema"]["properties"]
    return json.dumps({"agent": props["agent"]["enum"][0], "step": props["step"].get("minimum", 0),
                       "reason": "The first step already used the wrong figure, and every later step built on it."})


def timed(cmd: list[str], env: dict) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/datasets/who_and_when")
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=3, help="full runs; the median is reported")
    args = ap.parse_args()
    n = len(list(iter_log_paths([args.data])))
    work = tempfile.mkdtemp(prefix="attrib-throughput-")
    env = {**os.environ, "ATTRIB_CACHE_DIR": work}
    env["ATTRIB_API_KEY"] = "bench"
    first = str(next(iter_log_paths([args.data])))

    def evaluate(data: str, url: str, out: str) -> float:
        return timed([sys.executable, "-m", "attrib.cli", "evaluate", data, "--method", "all-at-once",
                      "--model", "gpt-4o-mini", "--base-url", url, "--concurrency", str(args.concurrency),
                      "--no-cache", "--quiet", "--out", os.path.join(work, out)], env)

    with MockServer(first_valid_answer, keep_alive=True) as srv:
        startup = statistics.median(evaluate(first, srv.url, f"startup{i}") for i in range(3))
    walls, spans = [], []
    with MockServer(first_valid_answer, latency=args.latency, keep_alive=True) as srv:
        for i in range(args.repeats):
            srv.reset()
            walls.append(evaluate(args.data, srv.url, f"run{i}"))
            times = [r.time for r in srv.requests]
            spans.append(max(times) + args.latency - min(times))  # first request sent -> last answer received
    wall, span = statistics.median(walls), statistics.median(spans)
    ideal = n * args.latency / args.concurrency
    print(f"cases {n}, {args.repeats} runs, latency {args.latency}s, concurrency {args.concurrency}, ideal {ideal:.2f}s")
    print(f"wall (median) {wall:.2f}s [{', '.join(f'{w:.2f}' for w in walls)}]; one-case run (start-up) {startup:.2f}s")
    print(f"first request -> last answer (median) {span:.2f}s [{', '.join(f'{x:.2f}' for x in spans)}]; "
          f"before/after that: {wall - span:.2f}s")
    print(f"ratio span / ideal = {span / ideal:.2f}   ratio (wall - one-case run) / ideal = {(wall - startup) / ideal:.2f}"
          "   (target <= 1.3)")


if __name__ == "__main__":
    main()
