"""A self-contained HTML report of one CHIEF run: the causal graph drawn as inline SVG plus its evidence.

The page needs no network: CSS and JavaScript are inline (:mod:`attrib.chief.report_assets`)
and the drawing is laid out here in Python, so it shows even with scripts disabled. Subtasks
are columns from left to right; each column stacks its agent nodes, and every step of the
log is a numbered chip under the agent node that performed it. Subtask edges arc above the
columns, agent edges bend through the gutter right of their column, and data-flow (step)
edges join chips. Clicking a chip shows the step's full text in the side panel; the texts
travel in a JSON blob whose ``<`` characters are escaped, and every other piece of log
text is HTML-escaped.
"""

from __future__ import annotations

import json
import math
from html import escape

from ..agents import agent_key
from ..attribution import Attribution
from ..formatting import step_ranges
from ..trajectory import Trajectory
from .graph import CausalGraph, Verdict
from .layout import UNASSIGNED, Column, columns, flat, root_nodes
from .report_assets import AGENT_COLORS, CSS, FLOW_COLOR, JS, SUB_COLOR, legend
from .report_stages import judged_section
from .report_stages import table as _table

PAD, COL_W, GAP, HEAD_H = 16, 236, 84, 62
NODE_X, NODE_HEAD, NODE_GAP = 14, 44, 22
CHIP_W, CHIP_H, CHIP_GAP, PER_ROW = 28, 20, 4, 6


def _e(text: object) -> str:
    return escape(str(text), quote=True)


class _Verdicts:
    """The graph's backtracking verdicts indexed by level and target."""

    def __init__(self, verdicts: list[Verdict]) -> None:
        self.subtask: dict[str, Verdict] = {}
        self.agent: dict[tuple[str, str], Verdict] = {}
        self.step: dict[int, Verdict] = {}
        for v in verdicts:
            if v.level == "subtask":
                self.subtask[v.target] = v
            elif v.level == "agent":
                sub, _, agent = v.target.partition(":")
                self.agent[(sub, agent_key(agent))] = v
            elif v.target.strip().isdigit():
                self.step[int(v.target)] = v


def _badge(v: Verdict | None) -> str:
    if v is None:
        return ""
    return f'<span class="badge {"bad" if v.discrepancy else "ok"}">{"deviates" if v.discrepancy else "ok"}</span>'


# ----------------------------------------------------------------------------- SVG drawing


def _node_height(n_steps: int) -> int:
    return NODE_HEAD + math.ceil(n_steps / PER_ROW) * (CHIP_H + CHIP_GAP) + 6


def _markers() -> str:
    colors = {"sub": SUB_COLOR, "flow": FLOW_COLOR} | {k: c for k, (c, _) in AGENT_COLORS.items()}
    return "<defs>" + "".join(
        f'<marker id="m-{k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>' for k, c in colors.items()
    ) + "</defs>"


def draw_svg(graph: CausalGraph, traj: Trajectory, cols: list[Column]) -> str:
    """The causal graph as one ``<svg id="graph">`` element (positions computed here)."""
    v = _Verdicts(graph.verdicts)
    roots = root_nodes(graph, cols)
    cand_steps, cand_agents = set(graph.candidate_steps), {agent_key(a) for a in graph.candidate_agents}
    loop_steps = {i for g in graph.loop_groups for i in g.steps}
    col_index = {c.key: i for i, c in enumerate(cols)}
    spans = [abs(col_index[e.target] - col_index[e.source]) for e in graph.subtask_edges
             if e.source in col_index and e.target in col_index]
    top = 30 + 14 * min(max(spans, default=1), 6)
    col_x = [PAD + i * (COL_W + GAP) for i in range(len(cols))]
    chip_pos: dict[int, tuple[float, float]] = {}
    node_box: dict[tuple[str, str], tuple[float, float, float]] = {}  # (col, agent key) -> x right, y mid-head, y top
    body: list[str] = []
    chips: list[str] = []
    placed = {i for c in cols for n in c.nodes for i in n.steps}
    bottom = top + HEAD_H
    root_done = False
    for ci, col in enumerate(cols):
        x = col_x[ci]
        sid = col.key
        sub_cls = (" cand" if sid in graph.candidate_subtasks else "") + (" root" if any(r[0] == sid for r in roots) else "")
        n_col = sum(len(n.steps) for n in col.nodes)
        span = f"steps {col.subtask.start}–{col.subtask.end}" if col.subtask else f"{n_col} steps"
        name = col.subtask.name if col.subtask else col.title
        verdict = v.subtask.get(sid)
        vmark = ""
        if verdict is not None:
            vmark = (f'<circle class="vdot {"bad" if verdict.discrepancy else "ok"}" cx="{x + COL_W - 14}" cy="{top + 16}" r="6">'
                     f'<title>{_e(("deviates: " if verdict.discrepancy else "ok: ") + verdict.reason)}</title></circle>')
        label = sid if col.subtask else "—"
        body.append(f'<g class="shead{sub_cls}"><a href="#card-{ci}"><rect x="{x}" y="{top}" width="{COL_W}" '
                    f'height="{HEAD_H}" rx="7"/><title>{_e(col.title)}</title>'
                    f'<text class="sid" x="{x + 10}" y="{top + 20}">{_e(flat(label, 12))}</text>'
                    f'<text class="sname" x="{x + 10}" y="{top + 38}">{_e(flat(name, 34))}</text>'
                    f'<text class="srange" x="{x + 10}" y="{top + 54}">{_e(span)}</text></a>{vmark}</g>')
        y = top + HEAD_H + 16
        for ni, view in enumerate(col.nodes):
            akey = agent_key(view.agent)
            h = _node_height(len(view.steps))
            nx = x + NODE_X
            w = COL_W - 2 * NODE_X
            is_root = (sid, akey) in roots
            cls = "agent" + (" root" if is_root else "") + (" implicit" if view.implicit else "") + \
                (" cand" if sid in graph.candidate_subtasks and akey in cand_agents else "")
            extra = ""
            if is_root and graph.root_step not in placed and not root_done:
                extra, root_done = ' id="root-cause" data-agent="' + _e(view.agent) + '"', True
            av = v.agent.get((sid, akey))
            meta = flat("steps " + step_ranges(view.steps), 34) if view.steps else "no steps"
            parts = [(f'<g class="{cls}" data-node="{ci}:{ni}"{extra}><rect class="box" x="{nx}" y="{y}" '
                      f'width="{w}" height="{h}" rx="8"/><title>{_e(view.agent)}</title>'),
                     f'<text class="aname" x="{nx + 10}" y="{y + 18}">{_e(flat(view.agent, 22))}</text>',
                     f'<text class="ameta" x="{nx + 10}" y="{y + 34}">{_e(meta)}</text>']
            if is_root:
                parts.append(f'<g class="rtag"><rect x="{nx + w - 86}" y="{y + 6}" width="80" height="17" rx="8.5"/>'
                             f'<text x="{nx + w - 46}" y="{y + 18}" text-anchor="middle">ROOT CAUSE</text></g>')
            elif av is not None:
                parts.append(f'<circle class="vdot {"bad" if av.discrepancy else "ok"}" cx="{nx + w - 12}" cy="{y + 14}" r="5">'
                             f'<title>{_e(("deviates: " if av.discrepancy else "ok: ") + av.reason)}</title></circle>')
            parts.append("</g>")
            body += parts
            for k, i in enumerate(view.steps):
                cx = nx + 8 + (k % PER_ROW) * (CHIP_W + CHIP_GAP)
                cy = y + NODE_HEAD + (k // PER_ROW) * (CHIP_H + CHIP_GAP)
                chip_pos[i] = (cx, cy)
                ccls = "chip" + (" root" if i == graph.root_step else "") + (" cand" if i in cand_steps else "") + \
                    (" loop" if i in loop_steps else "")
                rid = ' id="root-cause"' if i == graph.root_step else ""
                ring = (f'<rect class="root-ring" x="{cx - 4}" y="{cy - 4}" width="{CHIP_W + 8}" height="{CHIP_H + 8}" rx="7"/>'
                        if i == graph.root_step else "")
                tip = f"step {i} · {traj.steps[i].agent}: {flat(traj.steps[i].content, 140)}"
                chips.append(f'<g class="{ccls}"{rid} data-step="{i}" tabindex="0" role="button" aria-label="step {i}">'
                            f'{ring}<rect x="{cx}" y="{cy}" width="{CHIP_W}" height="{CHIP_H}" rx="5"/>'
                            f'<text x="{cx + CHIP_W / 2}" y="{cy + CHIP_H / 2}">{i}</text><title>{_e(tip)}</title></g>')
            node_box[(sid, akey)] = (nx + w, y + 22, y)
            y += h + NODE_GAP
        bottom = max(bottom, y)
    height = bottom + PAD
    width = PAD + len(cols) * (COL_W + GAP)
    backs = [f'<rect class="colbg{" cand" if c.key in graph.candidate_subtasks else ""}" x="{col_x[i] - 6}" '
             f'y="{top - 6}" width="{COL_W + 12}" height="{height - top - 4}" rx="10"/>' for i, c in enumerate(cols)]
    edges = _edges(graph, col_x, col_index, top, node_box, chip_pos)
    return (f'<svg id="graph" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="CHIEF causal graph">{_markers()}'
            + "".join(backs + body) + edges[0] + "".join(chips) + edges[1] + "</svg>")


def _edges(graph: CausalGraph, col_x: list[int], col_index: dict[str, int], top: int,
           node_box: dict[tuple[str, str], tuple[float, float, float]],
           chip_pos: dict[int, tuple[float, float]]) -> tuple[str, str]:
    """SVG for (step edges, drawn under the chips; subtask + agent edges, drawn over everything)."""
    under, over = ['<g class="g-step">'], ['<g class="g-sub">']
    for e in graph.step_edges:
        if e.producer not in chip_pos or e.consumer not in chip_pos:
            continue
        (x1, y1), (x2, y2) = chip_pos[e.producer], chip_pos[e.consumer]
        y1, y2 = y1 + CHIP_H / 2, y2 + CHIP_H / 2
        if x2 > x1 + CHIP_W + 40:  # forward: right side of the producer to the left side of the consumer
            x1 += CHIP_W
            dx = max(40.0, (x2 - x1) / 2)
            d = f"M{x1},{y1} C{x1 + dx},{y1} {x2 - dx},{y2} {x2},{y2}"
        else:  # same column or backwards: loop out to the left of both chips
            dx = 26 + abs(y2 - y1) * 0.12
            d = f"M{x1},{y1} C{min(x1, x2) - dx},{y1} {min(x1, x2) - dx},{y2} {x2},{y2}"
        lit = " literal" if e.origin == "literal" else ""
        tip = f"step {e.producer} → {e.consumer}: {flat(e.data, 120)} ({e.data_type}, {e.origin})"
        under.append(f'<path class="e-step{lit}" data-from="{e.producer}" data-to="{e.consumer}" '
                     f'd="{d}" marker-end="url(#m-flow)">'
                     f'<title>{_e(tip)}</title></path>')
    under.append("</g>")
    for e in graph.subtask_edges:
        if e.source not in col_index or e.target not in col_index:
            continue
        a, b = col_index[e.source], col_index[e.target]
        x1, x2 = col_x[a] + COL_W / 2 + 20, col_x[b] + COL_W / 2 - 20
        lift = 26 + 14 * min(abs(b - a) - 1, 5)
        mid = (x1 + x2) / 2
        over.append(f'<path class="e-sub" d="M{x1},{top} C{x1},{top - lift} {x2},{top - lift} {x2},{top}" '
                    f'marker-end="url(#m-sub)"><title>{_e(f"{e.source} → {e.target}: {e.type}")}</title></path>'
                    f'<text class="elabel" x="{mid}" y="{top - lift * 0.75 - 3}" text-anchor="middle">'
                    f'{_e(e.type.replace("_", " "))}</text>')
    over.append('</g><g class="g-agent">')
    per_col: dict[str, int] = {}
    n_col: dict[str, int] = {}
    for e in graph.agent_edges:
        n_col[e.subtask] = n_col.get(e.subtask, 0) + 1
    for e in graph.agent_edges:
        src, dst = node_box.get((e.subtask, agent_key(e.source))), node_box.get((e.subtask, agent_key(e.target)))
        if src is None or dst is None:
            continue
        k = per_col.get(e.subtask, 0)
        per_col[e.subtask] = k + 1
        color, short = AGENT_COLORS.get(e.type, ("#555", e.type))
        xr, y1, y2 = src[0], src[1], dst[1]
        bx = xr + 14 + 10 * (k % 4)
        if src is dst:
            d, lx, ly = f"M{xr},{y1 - 8} C{xr + 34},{y1 - 26} {xr + 34},{y1 + 26} {xr + 1},{y1 + 8}", xr + 30, y1 - 10
        else:
            lx = xr + 26 + 10 * min(n_col[e.subtask] - 1, 3)  # labels sit right of every curve of the column
            d, ly = f"M{xr},{y1} C{bx + 12},{y1} {bx + 12},{y2} {xr + 1},{y2}", (y1 + y2) / 2 - 8 + 12 * (k % 3)
        over.append(f'<path class="e-agent" stroke="{color}" d="{d}" marker-end="url(#m-{e.type})">'
                    f'<title>{_e(f"{e.subtask}: {e.source} → {e.target} ({e.type})")}</title></path>'
                    f'<text class="elabel" x="{lx}" y="{ly}" style="fill:{color}">{_e(short)}</text>')
    over.append("</g>")
    return "".join(under), "".join(over)


# ----------------------------------------------------------------------------- HTML parts


def _step_button(i: int, root: int | None) -> str:
    return f'<button class="steplink{" root" if i == root else ""}" data-step="{i}">{i}</button>'


def _header(graph: CausalGraph, traj: Trajectory, att: Attribution | None) -> str:
    agent = att.agent if att else graph.root_agent
    step = att.step if att else graph.root_step
    out = [(f'<header class="top"><div class="title-row"><h1>CHIEF failure attribution</h1>'
            f'<span class="mono">{_e(graph.case_id)}</span><span class="muted small">{traj.n_steps} steps · '
            f'{len(traj.agents)} agents · {len(graph.subtasks)} subtasks</span></div>'),
           f'<div class="question" title="question">{_e(traj.question or "(no question in the log)")}</div>']
    cells = [("agent", _e(agent or "—")),
             ("step", _step_button(step, graph.root_step) if step is not None else "—"),
             ("status", f'<span class="badge {_e(att.status)}">{_e(att.status)}</span>' if att else "—"),
             ("method", _e(att.method) if att else "chief (graph only)"), ("model", _e(att.model) if att else "—")]
    reason = (att.reason or att.error or "") if att else "No attribution record given; showing the graph's root cause."
    out.append('<div class="verdict-card">' + "".join(f'<div><div class="k">{k}</div><div class="v">{v}</div></div>'
                                                      for k, v in cells)
               + f'<div><div class="k">reason</div><div class="v reason">{_e(reason or "—")}</div></div></div>')
    notes: list[str] = []
    if att and att.demo_model:
        notes.append("<b>Demo model:</b> this answer comes from the small embedded demo model and is not a real attribution.")
    if traj.gold is not None:
        notes.append(f"Ground truth in the log: {_e(traj.gold.agent)}, step {traj.gold.step}.")
    if graph.degraded:
        notes.append("<b>Degraded stages:</b><ul>" + "".join(f"<li>{_e(d)}</li>" for d in graph.degraded) + "</ul>")
    out += [f'<div class="warn">{n}</div>' for n in notes]
    return "".join(out) + "</header>"


def _quote(v: Verdict) -> str:
    if not v.quote:
        return ""
    found = "" if v.quote_found else ' <span class="badge bad">not in the step</span>'
    return f' <span class="muted">“{_e(v.quote)}”</span>{found}'


def _list(items: list[str]) -> str:
    return "<ul>" + "".join(f"<li>{_e(i)}</li>" for i in items) + "</ul>" if items else '<span class="muted">—</span>'


def _subtask_cards(graph: CausalGraph, cols: list[Column]) -> str:
    v = _Verdicts(graph.verdicts)
    cards = []
    for ci, col in enumerate(cols):
        s = col.subtask
        sv = v.subtask.get(col.key)
        root = graph.root_step is not None and s is not None and s.start <= graph.root_step <= s.end
        cls = "card" + (" cand" if col.key in graph.candidate_subtasks else "") + (" root" if root else "")
        head = f"{_e(col.title)} {_badge(sv)}" + (' <span class="badge root">root cause</span>' if root else "")
        parts = [f'<div class="{cls}" id="card-{ci}"><h3>{head}</h3>']
        if s is not None:
            parts.append(f'<div class="small muted">steps {s.start}–{s.end}</div><p class="small">{_e(s.description)}</p>')
        if sv is not None:
            parts.append(f'<p class="small"><b>Backtracking:</b> discrepancy {"yes" if sv.discrepancy else "no"} — '
                         f'{_e(sv.reason)}</p>')
        o = graph.oracle_for(col.key)
        if o is not None:
            parts.append(f"<dl><dt>goal</dt><dd>{_e(o.goal)}</dd><dt>preconditions</dt><dd>{_list(o.preconditions)}</dd>"
                         f"<dt>key evidence</dt><dd>{_list(o.key_evidence)}</dd>"
                         f"<dt>acceptance criteria</dt><dd>{_list(o.acceptance_criteria)}</dd></dl>")
        elif s is not None:
            parts.append('<p class="small muted">no oracle</p>')
        rows = [f"<li>{_badge(av)} <b>{_e(n.agent)}</b>: {_e(av.reason)}</li>"
                for n in col.nodes if (av := v.agent.get((col.key, agent_key(n.agent)))) is not None]
        steps = {i for n in col.nodes for i in n.steps}
        rows += [f"<li>{_badge(sv2)} {_step_button(i, graph.root_step)}: {_e(sv2.reason)}{_quote(sv2)}</li>"
                 for i, sv2 in sorted(v.step.items()) if i in steps]
        if rows:
            parts.append('<div class="small"><b>Agent / step verdicts</b></div><ul class="vlist">' + "".join(rows) + "</ul>")
        cards.append("".join(parts) + "</div>")
    return '<h2>Subtasks, oracles and backtracking verdicts</h2><div class="cards">' + "".join(cards) + "</div>"


def _evidence(graph: CausalGraph) -> str:
    """Candidate sets, screening conclusions, loop groups, literal flows and run details."""
    root = graph.root_step

    def steps(items: list[int], limit: int = 30) -> str:
        more = f" +{len(items) - limit} more" if len(items) > limit else ""
        return " ".join(_step_button(i, root) for i in items[:limit]) + more

    def mark(items: list[int]) -> str:
        return f"<button data-mark='{json.dumps(items)}'>highlight</button>"

    out = [('<h2>Backtracking candidates</h2>'
            f'<div class="setrow"><b>subtasks:</b> {_e(", ".join(graph.candidate_subtasks) or "—")}</div>'
            f'<div class="setrow"><b>agents:</b> {_e(", ".join(graph.candidate_agents) or "—")}</div>'
            f'<div class="setrow"><b>steps:</b> {steps(graph.candidate_steps) or "—"}</div>')]
    if graph.screening:
        out.append(_table("Counterfactual screening", ["stage", "conclusion"],
                          [[_e(k.replace("_", " ")), _e(t)] for k, t in graph.screening.items()]))
    out.append(_table("Loop groups", ["agent", "kind", "steps", "sample", ""],
                      [[_e(g.agent), _e(g.kind), steps(g.steps), _e(g.sample), mark(g.steps)] for g in graph.loop_groups]))
    out.append(_table("Literal flows", ["kind", "value", "producer", "consumers", ""],
                      [[_e(f.kind), f'<span class="mono">{_e(flat(f.value, 120))}</span>',
                        f"{_step_button(f.producer_step, root)} {_e(f.producer_agent)}", steps(f.consumer_steps),
                        mark([f.producer_step, *f.consumer_steps])] for f in graph.literal_flows]))
    out.append(judged_section(graph, steps))
    exemplars = ", ".join(f"{x.id} ({x.score:.2f})" for x in graph.exemplars) or "none"
    out.append(f'<p class="small muted">reflection rounds: {graph.reflection_rounds} · '
               f"decomposition exemplars: {_e(exemplars)}</p>")
    return "".join(out)


def _data(graph: CausalGraph, traj: Trajectory, cols: list[Column]) -> dict:
    v = _Verdicts(graph.verdicts)
    where: dict[int, str] = {}
    nodes: dict[str, dict] = {}
    for ci, col in enumerate(cols):
        for ni, n in enumerate(col.nodes):
            av = v.agent.get((col.key, agent_key(n.agent)))
            rec = n.node
            nodes[f"{ci}:{ni}"] = {"subtask": col.title, "agent": n.agent, "steps": n.steps, "implicit": n.implicit,
                                   "verdict": av.model_dump() if av else None,
                                   **{k: getattr(rec, k) if rec else "" for k in ("observation", "thought", "action", "result")}}
            for i in n.steps:
                where[i] = col.title
    loop = {i for g in graph.loop_groups for i in g.steps}
    ins: dict[int, list] = {}
    outs: dict[int, list] = {}
    for e in graph.step_edges:
        ins.setdefault(e.consumer, []).append([e.producer, flat(e.data, 200), e.data_type, e.origin])
        outs.setdefault(e.producer, []).append([e.consumer, flat(e.data, 200), e.data_type, e.origin])
    steps = [{"agent": s.agent, "label": s.label, "content": s.content, "role": s.role, "source_id": s.source_id,
              "subtask": where.get(s.index, UNASSIGNED), "loop": s.index in loop,
              "truncated": s.index in traj.truncated_steps, "inputs": ins.get(s.index, []), "outputs": outs.get(s.index, []),
              "verdict": v.step[s.index].model_dump() if s.index in v.step else None} for s in traj.steps]
    wanted = agent_key(graph.root_agent) if graph.root_agent else None
    root_node = next((k for k, n in nodes.items() if agent_key(n["agent"]) == wanted), None)
    return {"steps": steps, "nodes": nodes, "root": graph.root_step, "rootNode": root_node,
            "candidates": graph.candidate_steps}


def svg_height(svg: str) -> int:
    """The pixel height written on a drawing from :func:`draw_svg`."""
    return int(float(svg.split('height="', 1)[1].split('"', 1)[0]))


def script_json(obj: object) -> str:
    """JSON safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` become ``\\u`` escapes (so no ``</``)."""
    text = json.dumps(obj, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_report(graph: CausalGraph, traj: Trajectory, attribution: Attribution | None = None) -> str:
    """One self-contained HTML page describing ``graph`` over ``traj`` (and the final ``attribution``)."""
    cols = columns(graph, traj)
    svg = draw_svg(graph, traj, cols)
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>CHIEF report · {_e(flat(graph.case_id, 80))}</title><style>{CSS}</style></head><body>"
            + _header(graph, traj, attribution) + legend()
            + f'<div class="workspace" style="height:min(74vh,{max(svg_height(svg) + 24, 560)}px)">'
            + '<div class="graph-wrap" id="graph-wrap">' + svg
            + '</div><aside class="panel" aria-live="polite"><div id="panel-body"><p class="muted">Click a step chip to '
            'read the step, or an agent node for its Observation / Thought / Action / Result.</p></div></aside></div>'
            + '<main class="details">' + _subtask_cards(graph, cols) + _evidence(graph) + "</main>"
            + f'<script type="application/json" id="steps-data">{script_json(_data(graph, traj, cols))}</script>'
            + f"<script>{JS}</script></body></html>\n")


__all__ = ["draw_svg", "render_report", "script_json"]
