"""Calls, input/output tokens and seconds per case, per method and subset, against a local mock endpoint.

The endpoint (tests/mockserver.py) answers every prompt with a valid answer of realistic
length (tests/mock_answers.py), so the numbers measure what attrib sends, not model quality.
Usage:  python scripts/bench_tokens.py [--data ../shared/datasets/who_and_when] [--limit N]
        [--methods all-at-once,step-by-step,binary-search,hybrid,chief] [--kb-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from attrib import load_log
from attrib.api import make_client, predict_async
from attrib.readers import iter_log_paths

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # test doubles live under tests/
from mock_answers import make_realistic_responder  # noqa: E402
from mockserver import MockServer  # noqa: E402

SUBSETS = ("algorithm-generated", "hand-crafted")


async def run(paths: list[Path], method: str, url: str, kb_dir: str | None, concurrency: int = 8) -> list:
    client = make_client("gpt-4o-mini", url, api_key="bench", cache=False, concurrency=concurrency)
    sem = asyncio.Semaphore(concurrency)

    async def one(p: Path):
        async with sem:
            return await predict_async(load_log(p), method, client=client, kb_dir=kb_dir)

    return await asyncio.gather(*(one(p) for p in paths))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/datasets/who_and_when")
    ap.add_argument("--limit", type=int, default=None, help="logs per subset")
    ap.add_argument("--methods", default="all-at-once,step-by-step,binary-search,hybrid,chief")
    ap.add_argument("--kb-dir", default=None)
    args = ap.parse_args()
    os.environ.setdefault("ATTRIB_CACHE_DIR", tempfile.mkdtemp(prefix="attrib-bench-"))
    rows = []
    with MockServer(make_realistic_responder()) as srv:
        for subset in SUBSETS:
            paths = list(iter_log_paths([Path(args.data) / subset]))[: args.limit]
            for method in args.methods.split(","):
                started = time.perf_counter()
                atts = asyncio.run(run(paths, method, srv.url, args.kb_dir))
                wall = time.perf_counter() - started
                bad = [a for a in atts if a.status in ("invalid", "error")]
                rows.append((subset, method, len(atts), statistics.mean(a.usage.calls for a in atts),
                             statistics.mean(a.usage.input_tokens for a in atts),
                             statistics.mean(a.usage.output_tokens for a in atts), wall / len(atts), len(bad)))
                print(f"  done {subset} {method}", file=sys.stderr)
    print(f"{'subset':20s} {'method':14s} {'cases':>5s} {'calls/case':>10s} {'in tok/case':>12s} {'out tok/case':>12s} {'s/case':>7s} {'failed':>6s}")
    for r in rows:
        print(f"{r[0]:20s} {r[1]:14s} {r[2]:5d} {r[3]:10.1f} {r[4]:12,.0f} {r[5]:12,.0f} {r[6]:7.2f} {r[7]:6d}")
    for subset in SUBSETS:
        aao = next((r[4] for r in rows if r[0] == subset and r[1] == "all-at-once"), None)
        chief = next((r[4] for r in rows if r[0] == subset and r[1] == "chief"), None)
        if aao and chief:
            print(f"CHIEF / All-at-Once input tokens on {subset}: {chief / aao:.2f}x")


if __name__ == "__main__":
    main()
