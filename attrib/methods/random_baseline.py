"""Random: a seeded uniform choice of agent and (independently) step. No LLM.

Expected accuracy in closed form: 1/|agents| at agent level and 1/|steps| at step level
for one log; averaged over logs for a data set (see ``attrib.evaluation.scoring.random_expected``).
"""

from __future__ import annotations

import hashlib
import random

from ..core.method import method
from ..core.context import MethodResult, RunContext

NAME = "random"


def rng_for(case_id: str, seed: int) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{case_id}".encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


@method(NAME, needs_model=False)
async def run(ctx: RunContext) -> MethodResult:
    t = ctx.traj
    rng = rng_for(t.id, ctx.seed)
    agent = rng.choice(t.agents)
    step = rng.randrange(t.n_steps)
    return MethodResult(
        agent=agent, step=step,
        reason=f"uniform random choice (seed {ctx.seed}) among {len(t.agents)} agents and {t.n_steps} steps",
        details={"expected_agent_accuracy": 1 / len(t.agents), "expected_step_accuracy": 1 / t.n_steps},
    )
