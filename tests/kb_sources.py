"""Knowledge-base sources made up for the tests, shaped like GAIA and AssistantBench files.

Every vendored Who&When case gets its own task in the base (its question id and question,
invented solution steps), so the leak test has something to leak; invented distractor
tasks fill the rest. No row comes from GAIA or AssistantBench: the real sources are read
from a user-given path only (``scripts/check_kb_leaks.py`` runs the leak check on them).
"""

from __future__ import annotations

import json
from pathlib import Path

from attrib.kb.entries import GAIA_META
from attrib.readers import iter_log_paths, load_log

DISTRACTORS_GAIA = [
    ("inv-g1", "How many moons does the fourth planet from the sun have?", "1. Search the planet.\n2. Count its moons."),
    ("inv-g2", "What is the tallest building in the capital of France?", "1. Find the capital.\n2. Sort buildings by height."),
    ("inv-g3", "Which composer wrote the opera about a barber in Seville?", "1. Search the opera.\n2. Read the composer."),
    ("inv-g4", "In a spreadsheet of monthly sales, which month had the highest revenue?",
     "1. Open the file.\n2. Sum revenue per month.\n3. Take the maximum."),
    ("inv-g5", "What year did the first public library open in a given city, per its website?",
     "1. Find the official site.\n2. Read the history page."),
    ("inv-g6", "How many studio albums did a band release before 2000 according to Wikipedia?",
     "1. Open the discography.\n2. Count albums dated before 2000."),
]
DISTRACTORS_AB = [
    ("inv-a1", "Which gyms near a park in New York have fitness classes early in the morning?",
     "Search a map for gyms around the park, open each schedule and keep those with classes before 7am."),
    ("inv-a2", "Which cafes near the central station open before 6am?", "Use a map and check opening hours."),
    ("inv-a3", "What is the cheapest monthly pass for public transport in a mid-sized European city?",
     "Compare the operator's fare tables."),
]


def write_sources(folder: Path, cases_dir: Path) -> tuple[Path, Path]:
    """Write ``gaia.jsonl`` and ``assistantbench.jsonl`` into ``folder``; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    gaia_rows = [{"task_id": i, "Question": q, GAIA_META: {"Steps": s}} for i, q, s in DISTRACTORS_GAIA]
    ab_rows = [{"id": i, "task": q, "explanation": e} for i, q, e in DISTRACTORS_AB]
    for path in iter_log_paths([cases_dir]):
        case = load_log(path)
        steps = f"1. Read the task.\n2. Look up what it asks about.\n3. Answer (invented steps for case {case.id})."
        if case.question_id and "-" in case.question_id:  # GAIA ids are UUIDs, AssistantBench ids are hex digests
            gaia_rows.append({"task_id": case.question_id, "Question": case.question, GAIA_META: {"Steps": steps}})
        elif case.question_id:
            ab_rows.append({"id": case.question_id, "task": case.question, "explanation": steps})
    # the same question under another id: retrieval must still exclude it
    first = gaia_rows[len(DISTRACTORS_GAIA)]
    gaia_rows.append({**first, "task_id": "copy-of-" + first["task_id"], "Question": first["Question"].upper()})
    gaia, ab = folder / "gaia.jsonl", folder / "assistantbench.jsonl"
    gaia.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in gaia_rows), encoding="utf-8")
    ab.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ab_rows), encoding="utf-8")
    return gaia, ab
