"""Checks on the real knowledge-base sources, which never enter the repository.

Reads GAIA validation metadata and AssistantBench dev from the paths given (default
../shared/kb), builds the knowledge base in a temporary folder, and prints:
entries per source, how many GAIA tasks carry annotator steps, and, for every log of the
benchmark folder, whether retrieval ever returns the case's own task (by id, by a
near-identical question vector, or by the same normalized text). Exits 1 on any leak.

    python scripts/check_kb_leaks.py [--gaia FILE] [--assistantbench FILE] [--cases DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gaia", type=Path, default=SHARED / "kb" / "gaia_2023_validation_metadata.jsonl")
    ap.add_argument("--assistantbench", type=Path, default=SHARED / "kb" / "assistant_bench_v1.0_dev.jsonl")
    ap.add_argument("--cases", type=Path, default=SHARED / "datasets" / "who_and_when")
    args = ap.parse_args()

    from attrib.kb import build, retrieve_exemplars
    from attrib.kb.embed import embed
    from attrib.kb.entries import read_assistantbench, read_gaia
    from attrib.kb.retrieve import SAME_TASK_COSINE, same_question
    from attrib.readers import iter_log_paths, load_log

    gaia, ab = read_gaia(args.gaia), read_assistantbench(args.assistantbench)
    print(f"GAIA entries: {len(gaia)} ({sum(1 for e in gaia if e.guide)} with annotator steps); "
          f"AssistantBench entries: {len(ab)}")
    with tempfile.TemporaryDirectory() as tmp:
        kb = build(args.gaia, args.assistantbench, directory=Path(tmp))
        cases = [load_log(p) for p in iter_log_paths([args.cases])]
        vectors = embed([c.question for c in cases])
        ids = {e.id: i for i, e in enumerate(kb.entries)}
        leaks, unfiltered_top_is_own, missing = [], 0, 0
        for case, qvec in zip(cases, vectors, strict=True):
            own = kb.get(case.question_id) if case.question_id else None
            if own is None:
                missing += 1
            elif kb.search(case.question, k=1)[0].entry.id == own.id:
                unfiltered_top_is_own += 1
            for hit in retrieve_exemplars(kb, case.question, case.question_id, k=2):
                e = hit.entry
                near = float(kb.question_vectors[ids[e.id]] @ qvec) >= SAME_TASK_COSINE
                if e.id == case.question_id or near or same_question(e.question, case.question) or (
                        own is not None and same_question(e.question, own.question)):
                    leaks.append((case.path, e.id))
    print(f"cases: {len(cases)}; own task not in the base: {missing}; "
          f"own task would be the top hit without the filter: {unfiltered_top_is_own}; leaks with the filter: {len(leaks)}")
    for path, entry_id in leaks:
        print(f"  leak: {path} retrieved {entry_id}")
    return 1 if leaks else 0


if __name__ == "__main__":
    sys.exit(main())
