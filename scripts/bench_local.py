"""Seconds per call of the embedded model (SmolLM2-135M via llama.cpp) on short Who&When logs.

Usage: python scripts/bench_local.py [--data ../shared/datasets/who_and_when/algorithm-generated] [--cases 3]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from attrib import load_log, make_client, predict
from attrib.readers import iter_log_paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/datasets/who_and_when/algorithm-generated")
    ap.add_argument("--cases", type=int, default=3)
    ap.add_argument("--method", default="all-at-once")
    args = ap.parse_args()
    os.environ["ATTRIB_CACHE_DIR"] = tempfile.mkdtemp(prefix="attrib-local-")
    logs = sorted((load_log(p) for p in iter_log_paths([args.data])), key=lambda t: t.n_steps)[: args.cases]
    client = make_client("local", cache=False)
    started = time.perf_counter()
    client.warm_up()
    print(f"model load + warm-up: {time.perf_counter() - started:.1f} s")
    print(f"{'case':>6} {'steps':>5} {'status':>8} {'calls':>5} {'in tok':>7} {'out tok':>7} {'s/call':>7}")
    per_call = []
    for t in logs:
        att = predict(t, args.method, client=client)
        for c in att.calls:
            per_call.append(c.seconds)
        calls = max(att.usage.calls, 1)
        print(f"{t.id:>6} {t.n_steps:5d} {att.status:>8} {att.usage.calls:5d} {att.usage.input_tokens:7d} "
              f"{att.usage.output_tokens:7d} {att.usage.seconds / calls:7.1f}")
    if per_call:
        print(f"mean seconds per call: {sum(per_call) / len(per_call):.1f} over {len(per_call)} calls")


if __name__ == "__main__":
    main()
