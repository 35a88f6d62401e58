"""What each method costs per case, per subset, against a local mock endpoint with prompt caching.

The endpoint (tests/mockserver.py) answers every prompt with a valid answer of realistic length
(tests/mock_answers.py) and reports a repeated prompt prefix as cached the way OpenAI does
(``usage.prompt_tokens_details.cached_tokens``: the longest prefix already sent, in whole
128-token blocks, from 1,024 tokens on). Its prompt cache is emptied before each (subset,
method) batch, so one method's prompts never warm another's. The numbers measure what attrib
sends, not model quality.

Columns, means per case:
  in tok       input tokens as the API reports them (cached ones included)
  cached       input tokens served from the provider's prompt cache, and their share of ``in tok``
  out tok      output tokens
  billed@50%   billed-equivalent input tokens when a cached token costs 50% of an input token
               (OpenAI's gpt-4o/gpt-4o-mini discount): uncached + 0.5 x cached
  billed@10%   the same at 10% (DeepSeek, and OpenAI's gpt-4.1 family is 25%)
  USD          at gpt-4o-mini list prices with caching (input 0.15, cached 0.075, output 0.60 per 1M)
Then the CHIEF / All-at-Once ratios per subset, and CHIEF's output tokens per stage.

Usage:  python scripts/bench_tokens.py [--data ../shared/datasets/who_and_when] [--limit N | --sample N --seed S]
        [--methods all-at-once,step-by-step,binary-search,hybrid,chief] [--kb-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # test doubles live under tests/

from attrib import load_log  # noqa: E402
from attrib.api import make_client, predict_async  # noqa: E402
from attrib.attribution import Attribution  # noqa: E402
from attrib.readers import iter_log_paths  # noqa: E402

from mock_answers import make_realistic_responder  # noqa: E402
from mockserver import MockServer  # noqa: E402

SUBSETS = ("algorithm-generated", "hand-crafted")
MODEL = "gpt-4o-mini"  # priced in attrib's built-in table, cached input at 50%
CACHE_SHARES = (0.5, 0.1)


@dataclass
class Row:
    subset: str
    method: str
    cases: int = 0
    calls: float = 0.0
    input: float = 0.0
    cached: float = 0.0
    output: float = 0.0
    usd: float | None = None
    seconds: float = 0.0
    failed: int = 0
    stage_output: dict[str, float] = field(default_factory=dict)

    @property
    def share(self) -> float:
        return self.cached / self.input if self.input else 0.0

    def billed(self, cache_share: float) -> float:
        """Billed-equivalent input tokens when a cached token costs ``cache_share`` of an input token."""
        return self.input - self.cached + cache_share * self.cached


def summarize(subset: str, method: str, atts: list[Attribution], wall: float) -> Row:
    n = len(atts)
    costs = [a.usage.cost_usd for a in atts]
    stage_out: dict[str, float] = defaultdict(float)
    for a in atts:
        for c in a.calls:
            stage_out[c.stage] += c.output_tokens / n
    return Row(
        subset=subset, method=method, cases=n,
        calls=statistics.fmean(a.usage.calls for a in atts),
        input=statistics.fmean(a.usage.input_tokens for a in atts),
        cached=statistics.fmean(a.usage.cached_input_tokens for a in atts),
        output=statistics.fmean(a.usage.output_tokens for a in atts),
        usd=None if any(c is None for c in costs) else statistics.fmean(c or 0.0 for c in costs),
        seconds=wall / n, failed=sum(a.status in ("invalid", "error") for a in atts),
        stage_output=dict(stage_out),
    )


async def run(paths: list[Path], method: str, url: str, kb_dir: str | None, concurrency: int = 8) -> list[Attribution]:
    client = make_client(MODEL, url, api_key="bench", cache=False, concurrency=concurrency)
    sem = asyncio.Semaphore(concurrency)

    async def one(p: Path) -> Attribution:
        async with sem:
            return await predict_async(load_log(p), method, client=client, kb_dir=kb_dir)

    try:
        return await asyncio.gather(*(one(p) for p in paths))
    finally:
        await client.aclose()


def pick(paths: list[Path], limit: int | None, sample: int | None, seed: int) -> list[Path]:
    if sample is not None:
        return sorted(random.Random(seed).sample(paths, min(sample, len(paths))), key=lambda p: (len(p.stem), p.stem))
    return paths[:limit]


def print_rows(rows: list[Row]) -> None:
    head = (f"{'subset':20s} {'method':14s} {'cases':>5s} {'calls':>6s} {'in tok':>9s} {'cached':>9s} {'share':>6s} "
            f"{'out tok':>8s} {'billed@50%':>11s} {'billed@10%':>11s} {'USD/case':>10s} {'s/case':>7s} {'failed':>6s}")
    print(head)
    for r in rows:
        usd = "-" if r.usd is None else f"{r.usd:.6f}"
        print(f"{r.subset:20s} {r.method:14s} {r.cases:5d} {r.calls:6.1f} {r.input:9,.0f} {r.cached:9,.0f} "
              f"{r.share:6.1%} {r.output:8,.0f} {r.billed(0.5):11,.0f} {r.billed(0.1):11,.0f} {usd:>10s} "
              f"{r.seconds:7.2f} {r.failed:6d}")


def print_ratios(rows: list[Row]) -> None:
    for subset in SUBSETS:
        aao = next((r for r in rows if r.subset == subset and r.method == "all-at-once"), None)
        chief = next((r for r in rows if r.subset == subset and r.method == "chief"), None)
        if not (aao and chief and aao.input):
            continue
        parts = [f"raw input {chief.input / aao.input:.2f}x"]
        parts += [f"billed@{int(s * 100)}% {chief.billed(s) / aao.billed(s):.2f}x" for s in CACHE_SHARES]
        if aao.usd and chief.usd is not None:
            parts.append(f"USD {chief.usd / aao.usd:.2f}x")
        if aao.output:
            parts.append(f"output {chief.output / aao.output:.1f}x")
        print(f"CHIEF / All-at-Once on {subset}: " + ", ".join(parts))


def print_stages(rows: list[Row]) -> None:
    chief = [r for r in rows if r.method == "chief"]
    if not chief:
        return
    print("\nCHIEF output tokens per case, by stage")
    stages = sorted({s for r in chief for s in r.stage_output})
    print(f"{'stage':28s}" + "".join(f"{r.subset:>22s}" for r in chief))
    for s in stages:
        print(f"{s:28s}" + "".join(f"{r.stage_output.get(s, 0.0):22,.0f}" for r in chief))
    print(f"{'total':28s}" + "".join(f"{r.output:22,.0f}" for r in chief))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "datasets" / "who_and_when"))
    ap.add_argument("--limit", type=int, default=None, help="the first N logs per subset")
    ap.add_argument("--sample", type=int, default=None, help="a seeded random sample of N logs per subset")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--methods", default="all-at-once,step-by-step,binary-search,hybrid,chief")
    ap.add_argument("--kb-dir", default=None)
    args = ap.parse_args()
    os.environ.setdefault("ATTRIB_CACHE_DIR", tempfile.mkdtemp(prefix="attrib-bench-"))
    rows: list[Row] = []
    with MockServer(make_realistic_responder(), keep_alive=True) as srv:
        for subset in SUBSETS:
            paths = pick(list(iter_log_paths([Path(args.data) / subset])), args.limit, args.sample, args.seed)
            for method in args.methods.split(","):
                srv.reset()  # an empty prompt cache: no method is warmed by another's prompts
                started = time.perf_counter()
                atts = asyncio.run(run(paths, method, srv.url, args.kb_dir))
                rows.append(summarize(subset, method, atts, time.perf_counter() - started))
                print(f"  done {subset} {method}", file=sys.stderr)
    print(f"means per case; model {MODEL} (USD with cached input at 50%); mock endpoint with OpenAI-style prefix caching")
    print_rows(rows)
    print()
    print_ratios(rows)
    print_stages(rows)


if __name__ == "__main__":
    main()
