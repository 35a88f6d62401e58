"""Predicting one log: build the LLM client, run one method, return the Attribution (re-exported by :mod:`attrib.api`).

>>> from attrib import load_log, predict
>>> traj = load_log("data/example-algorithm.json")
>>> att = predict(traj, method="all-at-once", model="local")
>>> att.agent, att.step, att.reason
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from .attribution import Attribution, Usage
from .errors import LLMError
from .llm.cache import Cache
from .llm.client import LLMClient
from .llm.config import Config, load_config, resolve
from .llm.local_backend import DEMO_NOTICE
from .methods import get as get_method
from .core.options import MethodOptions
from .core.context import InvalidAnswer, RunContext
from .readers import load_log
from .render import excerpt
from .trajectory import Trajectory


def make_client(model: str | None = None, base_url: str | None = None, *, config: Config | str | Path | None = None,
                cache: bool | str | Path = True, offline: bool = False, **settings) -> LLMClient:
    """Resolve a model (flags > env > attrib.toml > embedded demo) and build the one LLM client."""
    cfg = config if isinstance(config, Config) else load_config(config)
    ms = resolve(model, base_url, config=cfg, **settings)
    store = None if cache is False else Cache(None if cache is True else cache)
    return LLMClient(ms, config=cfg, cache=store, offline=offline)


class _InfrastructureFailure(Exception):
    """The log says the run died on infrastructure: there is no agent mistake to attribute."""


async def predict_async(traj: Trajectory, method: str = "all-at-once", *, client: LLMClient | None = None,
                        with_ground_truth: bool = True, seed: int = 0, options: MethodOptions | None = None,
                        **option_values: Any) -> Attribution:
    """Run one method on one trajectory. Invalid answers and failed calls come back as a status, not an exception.

    Method options come as ``options`` and/or keywords (``chief_modules="m1"``); an unknown one is a ConfigError.
    A log whose run died on infrastructure (``traj.infrastructure_failure``) is not attributed: the
    status is ``infrastructure_failure`` with the reason as ``error``, and no model is called.
    """
    spec = get_method(method)
    ctx = RunContext(traj=traj, client=client if spec.needs_model else None,
                     with_ground_truth=with_ground_truth, seed=seed, options=MethodOptions.of(options, **option_values))
    started = time.perf_counter()
    att = Attribution(case_id=traj.id, log_path=traj.path, method=method,
                      model=client.settings.model if (client and spec.needs_model) else "none",
                      demo_model=bool(client and spec.needs_model and client.settings.is_demo),
                      with_ground_truth=with_ground_truth)
    try:
        if traj.infrastructure_failure:
            raise _InfrastructureFailure(traj.infrastructure_failure)
        result = await spec.run(ctx)
    except _InfrastructureFailure as exc:
        att.status, att.error = "infrastructure_failure", str(exc)
        ctx.notice("the run died on infrastructure (see error); no agent is blamed and no model was called")
    except InvalidAnswer as exc:
        att.status, att.error = "invalid", str(exc)
    except LLMError as exc:
        att.status, att.error = "error", client.redact(str(exc)) if client else str(exc)
    else:
        att.status, att.agent, att.step, att.reason = result.status, result.agent, result.step, result.reason
        att.candidates, att.details, att.error = result.candidates, result.details, result.error
        att.confidence, att.handoffs = result.confidence, result.handoffs
        if result.step is not None:
            step = traj.steps[result.step]
            att.step_excerpt, att.step_source_id = excerpt(step.content), step.source_id
    if att.demo_model:
        ctx.notice(DEMO_NOTICE)
    if client is not None:
        for note in client.notes:
            ctx.notice(note)
    if traj.truncated_steps:
        ctx.notice(f"the reader shortened {len(traj.truncated_steps)} very long steps before prompting")
    att.notices, att.calls = ctx.notices, ctx.calls
    att.usage = Usage.of(ctx.calls, seconds=time.perf_counter() - started)
    return att


def predict(traj: Trajectory | str | Path, method: str = "all-at-once", *, model: str | None = None,
            base_url: str | None = None, client: LLMClient | None = None, with_ground_truth: bool = True,
            seed: int = 0, options: MethodOptions | None = None, **option_values: Any) -> Attribution:
    """Synchronous :func:`predict_async`; accepts a path or a Trajectory."""
    if not isinstance(traj, Trajectory):
        traj = load_log(traj)
    if client is None and get_method(method).needs_model:
        client = make_client(model, base_url)
    return asyncio.run(predict_async(traj, method, client=client, with_ground_truth=with_ground_truth, seed=seed,
                                     options=options, **option_values))
