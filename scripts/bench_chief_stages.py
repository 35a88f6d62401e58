"""CHIEF per stage: output tokens and the share of each prompt served by the shared prefix.

Runs CHIEF (full, by default) on each log against the local mock endpoint with realistic
answers (tests/mock_answers.py), counting with tiktoken (cl100k_base): each stage's output
tokens, its input tokens, and the share of its input that is the case's shared prefix
(system prompt, task block, whole log; identical bytes in every stage and in All-at-Once),
and that share with the judging rules every CHIEF stage sends right after the log.
Usage:  python scripts/bench_chief_stages.py [--data ../shared/datasets/who_and_when] [--limit N]
        [--modules full] [--kb-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from attrib import load_log, prompts
from attrib.api import make_client, predict_async
from attrib.llm.tokens import count_tokens
from attrib.readers import iter_log_paths

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # test doubles live under tests/
from mock_answers import make_realistic_responder
from mockserver import MockServer

SUBSETS = ("algorithm-generated", "hand-crafted")
_LAST = re.compile(r"The log has (\d+) steps")


def prefix_end(user: str) -> int:
    """Index just past the last step of the log in a CHIEF prompt (the end of the shared prefix)."""
    n = int(_LAST.search(user).group(1))  # type: ignore[union-attr]
    last = user.index(f"--- step {n - 1} | agent: ")
    return user.index("\n</content>", last) + len("\n</content>")


class Meter:
    """Wraps a responder; records per schema name: output tokens, input tokens, prefix share."""

    def __init__(self, respond) -> None:
        self.respond = respond
        self.rows: dict[str, list[tuple[int, int, float, float]]] = defaultdict(list)
        self.rules = "\n\n" + prompts.template("chief/rules")

    def __call__(self, body: dict) -> str:
        reply = self.respond(body)
        name = body["response_format"]["json_schema"]["name"]
        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
        end = prefix_end(user)
        assert user[end:].startswith(self.rules)
        head = count_tokens(system) + count_tokens(user[:end])
        shared = count_tokens(system) + count_tokens(user[: end + len(self.rules)])
        total = count_tokens(system) + sum(count_tokens(m["content"]) for m in body["messages"][1:])
        self.rows[name].append((count_tokens(reply), total, head / total, shared / total))
        return reply


async def run(paths: list[Path], url: str, modules: str, kb_dir: str | None) -> list:
    client = make_client("gpt-4o-mini", url, api_key="bench", cache=False, concurrency=4)
    sem = asyncio.Semaphore(4)

    async def one(p: Path):
        async with sem:
            return await predict_async(load_log(p), "chief", client=client, chief_modules=modules, kb_dir=kb_dir)

    return await asyncio.gather(*(one(p) for p in paths))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/datasets/who_and_when")
    ap.add_argument("--limit", type=int, default=None, help="logs per subset")
    ap.add_argument("--modules", default="full")
    ap.add_argument("--kb-dir", default=None)
    args = ap.parse_args()
    os.environ.setdefault("ATTRIB_CACHE_DIR", tempfile.mkdtemp(prefix="attrib-bench-"))
    print(f"CHIEF ({args.modules}) per stage, tiktoken cl100k_base counts, realistic mock answers")
    print(f"{'subset':<20} {'stage':<14} {'calls':>5} {'out mean':>9} {'out max':>8} {'in mean':>8} "
          f"{'prefix share mean':>18} {'min':>6} {'+rules mean':>12}")
    for subset in SUBSETS:
        paths = list(iter_log_paths([Path(args.data) / subset]))[: args.limit]
        meter = Meter(make_realistic_responder())
        with MockServer(meter) as srv:
            atts = asyncio.run(run(paths, srv.url, args.modules, args.kb_dir))
        bad = [a for a in atts if a.status != "ok"]
        for name, rows in meter.rows.items():
            outs, ins, shares, shared = zip(*rows, strict=True)
            print(f"{subset:<20} {name:<14} {len(rows):>5} {statistics.mean(outs):>9.0f} {max(outs):>8} "
                  f"{statistics.mean(ins):>8.0f} {statistics.mean(shares):>17.1%} {min(shares):>6.1%} "
                  f"{statistics.mean(shared):>11.1%}")
        per_case = sum(r[0] for rows in meter.rows.values() for r in rows) / max(len(atts), 1)
        print(f"{subset:<20} {'per case':<14} {len(atts):>5} {per_case:>9.0f}   (output tokens; {len(bad)} not ok)")


if __name__ == "__main__":
    main()
