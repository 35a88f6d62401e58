"""Throughput of `attrib evaluate`: all-at-once over every log against a mock endpoint that answers after a fixed latency.

Ideal time = cases x latency / concurrency. The script times the whole command in a subprocess and,
as its start-up cost, the same command over ONE log answered at once (imports, SDK and tokenizer
loading, run directory, summary); it prints the ratio (wall - start-up) / ideal.  Usage:
    python scripts/bench_throughput.py [--data ../shared/datasets/who_and_when] [--latency 0.2] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from attrib.mock_answers import make_realistic_responder
from attrib.mockserver import MockServer
from attrib.readers import iter_log_paths


def timed(cmd: list[str], env: dict) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/datasets/who_and_when")
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=16)
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

    with MockServer(make_realistic_responder()) as srv:
        startup = min(evaluate(first, srv.url, f"startup{i}") for i in range(3))
    with MockServer(make_realistic_responder(), latency=args.latency) as srv:
        wall = evaluate(args.data, srv.url, "run")
        served = srv.count
    ideal = n * args.latency / args.concurrency
    print(f"cases {n}, requests served {served}, latency {args.latency}s, concurrency {args.concurrency}")
    print(f"ideal {ideal:.2f}s  start-up {startup:.2f}s  wall {wall:.2f}s")
    print(f"ratio (wall - start-up) / ideal = {(wall - startup) / ideal:.2f}  (target <= 1.3)")


if __name__ == "__main__":
    main()
