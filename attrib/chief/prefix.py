"""The one prefix every CHIEF call starts with: system prompt, task block, then the whole log.

Every stage (graph, reflection, backtracking, screening, the ablations' direct call)
sends ``[system, user]`` where the user message is this case's prefix text, then the
judging rules every stage shares (``prompts/chief/rules.txt``), then the stage's own
instructions, exemplars, graph and answer format. The prefix is the same bytes for every
stage of a case, and it is the head of All-at-Once's prompt as well (same wording, same
rendering, same per-step cap), so a provider's prompt cache serves the log from the
second call on (and the rules with it, across CHIEF's stages).

The per-step cap is chosen once per case (the largest of :data:`attrib.render.BUDGETS`
whose prefix leaves room for the largest stage), so all stages keep the same bytes even
for logs that must be shortened to fit the context window.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .. import prompts
from ..core.context import RunContext
from ..render import BUDGETS, render_steps

STAGE_ROOM = 6000  # tokens left for the largest stage's instructions and graph, beside its answer
ANSWER_ROOM = 3000  # tokens reserved for the largest stage's answer


@dataclass
class Prefix:
    """The rendered prefix of one case, and which steps it shortened."""

    text: str
    cap: int | None
    shortened: list[int] = field(default_factory=list)

    def messages(self, ctx: RunContext, template: str, **values: object) -> list[dict[str, str]]:
        """``[system, user]``: the shared prefix, a blank line, then the stage template rendered with the task values."""
        stage = prompts.render(template, **{**ctx.task_values(), **values})
        return [{"role": "system", "content": prompts.template("system")},
                {"role": "user", "content": self.text + "\n\n" + prompts.template("chief/rules") + "\n\n" + stage}]

    def build(self, ctx: RunContext, template: str, **values: object) -> Callable[[int | None], list[dict[str, str]]]:
        """A ``build(budget)`` callable for :meth:`RunContext.ask`: this prefix, unless the stage needs a tighter cap.

        :meth:`RunContext.ask` tries budgets from none to the tightest; a stage that does not fit at this
        prefix's cap (a small context window) gets the log cut harder, and only that stage loses the cache.
        """
        def build(budget: int | None) -> list[dict[str, str]]:
            if budget is None or (self.cap is not None and self.cap <= budget):
                return self.messages(ctx, template, **values)
            return render_prefix(ctx, budget).messages(ctx, template, **values)

        return build


def render_prefix(ctx: RunContext, cap: int | None) -> Prefix:
    t = ctx.traj
    text = prompts.render("chief/prefix", **ctx.task_values(), steps=render_steps(t.steps, cap))
    shortened = [] if cap is None else [s.index for s in t.steps if len(s.content.strip()) > cap]
    return Prefix(text=text, cap=cap, shortened=shortened)


def shared_prefix(ctx: RunContext) -> Prefix:
    """The case's prefix at the largest per-step cap that leaves room for every stage (see the module docstring)."""
    client = ctx.client
    for cap in BUDGETS:
        prefix = render_prefix(ctx, cap)
        if client is None:
            return prefix
        window = client.settings.context_window
        stage_room, answer_room = min(STAGE_ROOM, window // 4), min(ANSWER_ROOM, window // 8)
        room = [{"role": "system", "content": prompts.template("system")},
                {"role": "user", "content": prefix.text + "\n" + "x " * stage_room}]
        if client.fits_estimate(client.estimate(room, {"type": "object"}, answer_room), answer_room):
            if cap is not None:
                ctx.notice(f"step contents were shortened to {cap} characters each (head and tail kept) to fit the context window")
            return prefix
    return render_prefix(ctx, BUDGETS[-1])
