"""Inline CSS, JavaScript, colours and legend of the CHIEF HTML report (no network, no external fonts).

The script reads the JSON blob ``<script type="application/json" id="steps-data">`` and
only ever writes log text with ``textContent``, so step contents are never parsed as HTML.
"""

from __future__ import annotations

AGENT_COLORS: dict[str, tuple[str, str]] = {  # type -> (colour, short label)
    "obs_dependency": ("#3b6fb6", "obs"), "reasoning_continuation": ("#7b4fb3", "reason"),
    "decision_dependency": ("#c2571a", "decide"), "environment_feedback": ("#23865a", "env"),
    "memory_ref": ("#8a6d3b", "memory"), "loop_control": ("#b3246b", "loop"),
}
SUB_COLOR, FLOW_COLOR = "#334155", "#2a9d8f"

CSS = """
:root{--bg:#f5f6fa;--ink:#1d2433;--muted:#5b6478;--line:#d9deea;--card:#fff;--root:#d7263d;
--cand:#d08a00;--candbg:#fff3d6;--ok:#23865a;--bad:#c0392b;--flow:#2a9d8f;--loop:#7b4fb3;--sub:#334155}
*{box-sizing:border-box}
html,body{margin:0;background:var(--bg);color:var(--ink);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
header.top{padding:10px 18px 8px;background:#fff;border-bottom:1px solid var(--line)}
.title-row{display:flex;align-items:baseline;gap:14px;flex-wrap:wrap}
h1{font-size:18px;margin:0}
h2{font-size:16px;margin:22px 0 8px}
h3{font-size:14px;margin:0 0 4px}
.muted{color:var(--muted)}
.small{font-size:12px}
code,pre,.mono{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"Liberation Mono",monospace}
.question{margin:6px 0;max-height:3.1em;overflow:auto;white-space:pre-wrap;font-size:13px}
.verdict-card{display:grid;grid-template-columns:repeat(5,auto) 1fr;gap:4px 18px;align-items:start;
border:2px solid var(--root);border-radius:8px;padding:7px 12px;background:#fff6f7}
.verdict-card .k{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.verdict-card .v{font-weight:600}
.verdict-card .reason{font-weight:400;max-height:4.4em;overflow:auto;white-space:pre-wrap;font-size:13px}
.badge{display:inline-block;padding:0 7px;border-radius:9px;font-size:11px;font-weight:600;line-height:18px;
background:#e5e8f0;color:#333;white-space:nowrap}
.badge.bad,.badge.error,.badge.invalid{background:#fde2e2;color:var(--bad)}
.badge.ok{background:#dff3e8;color:var(--ok)}
.badge.no_error_found{background:#e7ecf7;color:#345}
.badge.root{background:var(--root);color:#fff}
.badge.cand{background:var(--candbg);color:#7a5200}
.badge.loop{background:#eee5f8;color:var(--loop)}
.warn{margin:6px 0 0;padding:5px 10px;border-radius:6px;background:#fff4d6;border:1px solid #e8c66a;font-size:13px}
.warn ul{margin:2px 0 0 18px;padding:0}
.toolbar{display:flex;gap:16px;align-items:center;flex-wrap:wrap;padding:6px 18px;font-size:12px;
background:#fbfcfe;border-bottom:1px solid var(--line)}
.toolbar .item{display:inline-flex;align-items:center;gap:5px;white-space:nowrap}
.toolbar svg{overflow:visible}
.workspace{display:grid;grid-template-columns:minmax(0,1fr) 400px;height:74vh;min-height:420px}
.graph-wrap{overflow:auto;background:#fff;border-right:1px solid var(--line)}
#graph{display:block}
#graph text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:var(--ink)}
.colbg{fill:#eef1f8}.colbg.cand{fill:#fff7e6}
.shead rect{fill:#fff;stroke:#b9c2d8;stroke-width:1.2}
.shead.cand rect{stroke:var(--cand);stroke-width:2}
.shead.root rect{stroke:var(--root);stroke-width:2.5}
.shead .sid{font-weight:700;font-size:13px}.shead .sname{font-size:12px}.shead .srange{font-size:11px;fill:var(--muted)}
.agent{cursor:pointer}
.agent>rect.box{fill:#fff;stroke:#7d8aa8;stroke-width:1.2}
.agent.cand>rect.box{stroke:var(--cand);stroke-width:2;fill:#fffaf0}
.agent.root>rect.box{stroke:var(--root);stroke-width:3;fill:#fff3f4}
.agent.implicit>rect.box{stroke-dasharray:4 3;fill:#fafafa}
.agent.sel>rect.box{stroke:#111;stroke-width:2.5}
.agent .aname{font-weight:650;font-size:12.5px}.agent .ameta{font-size:10.5px;fill:var(--muted)}
.rtag rect{fill:var(--root)}.rtag text{fill:#fff!important;font-size:10px;font-weight:700}
.vdot.bad{fill:var(--bad)}.vdot.ok{fill:var(--ok)}
.chip{cursor:pointer;outline:none}
.chip rect{fill:#e6eaf5;stroke:#a6b0ca;stroke-width:1}
.chip text{font-size:10px;text-anchor:middle;dominant-baseline:central;pointer-events:none}
.chip.cand rect{fill:#ffe2a0;stroke:var(--cand)}
.chip.loop rect{stroke:var(--loop);stroke-dasharray:3 2;stroke-width:1.6}
.chip.root rect{fill:var(--root);stroke:#7a0010;stroke-width:2}
.chip.root text{fill:#fff!important;font-weight:700}
.chip:hover rect,.chip:focus rect{stroke:#111}
.chip.rel rect{stroke:var(--flow);stroke-width:2.6}
.chip.mark rect{stroke:var(--loop);stroke-width:2.6}
.chip.sel rect{stroke:#111;stroke-width:2.8}
.root-ring{fill:none;stroke:var(--root);stroke-width:2.5}
.e-sub{fill:none;stroke:var(--sub);stroke-width:2}
.e-agent{fill:none;stroke-width:1.7}
.e-step{fill:none;stroke:var(--flow);stroke-width:1.2;opacity:.45}
.e-step.literal{stroke-dasharray:5 3}
.e-step.hot{opacity:1;stroke-width:2.6}
.elabel{font-size:9.5px;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
svg.hide-sub .g-sub,svg.hide-agent .g-agent,svg.hide-step .g-step{display:none}
aside.panel{overflow:auto;padding:12px 14px;background:#fff}
aside.panel pre{white-space:pre-wrap;word-break:break-word;background:#f6f7fb;border:1px solid var(--line);
border-radius:6px;padding:8px;font-size:12px;max-height:none}
.panel .meta{display:grid;grid-template-columns:auto 1fr;gap:2px 10px;font-size:12.5px;margin:6px 0}
.panel .meta .k{color:var(--muted)}
.panel .nav{display:flex;gap:6px;margin:6px 0}
button{font:inherit;font-size:12px;padding:2px 10px;border:1px solid #b9c2d8;border-radius:5px;background:#fff;cursor:pointer}
.steplink{cursor:pointer;color:#1f5fbf;text-decoration:underline dotted;background:none;border:0;padding:0;font:inherit}
.steplink.root{color:var(--root);font-weight:700}
main.details{padding:4px 18px 40px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:12px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.card.cand{border-color:var(--cand)}.card.root{border:2px solid var(--root)}
.card:target{box-shadow:0 0 0 3px #9cc3ff}
.card dl{margin:4px 0;font-size:13px}.card dt{font-weight:600;color:var(--muted);font-size:12px;margin-top:4px}
.card dd{margin:0 0 0 2px}.card ul{margin:0;padding-left:18px}
.vlist{list-style:none;padding:0;margin:4px 0;font-size:13px}.vlist li{margin:3px 0}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px}
th,td{border:1px solid var(--line);padding:4px 7px;text-align:left;vertical-align:top}
th{background:#f0f2f8}
.setrow{margin:4px 0;font-size:13px}
"""

JS = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("steps-data").textContent);
  var svg = document.getElementById("graph");
  var wrap = document.getElementById("graph-wrap");
  var body = document.getElementById("panel-body");
  var chips = {};
  svg.querySelectorAll(".chip").forEach(function (c) { chips[c.getAttribute("data-step")] = c; });
  var current = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function stepLink(i) {
    var b = el("button", "steplink" + (i === data.root ? " root" : ""), "step " + i);
    b.setAttribute("data-step", i);
    return b;
  }
  function meta(box, k, v) {
    if (v === null || v === undefined || v === "") return;
    box.appendChild(el("span", "k", k));
    var val = el("span", "v");
    if (v instanceof Node) val.appendChild(v); else val.textContent = String(v);
    box.appendChild(val);
  }
  function clearMarks() {
    svg.querySelectorAll(".sel,.hot,.rel,.mark").forEach(function (e) { e.classList.remove("sel", "hot", "rel", "mark"); });
  }
  function reveal(node) {
    var w = wrap.getBoundingClientRect(), r = node.getBoundingClientRect();
    wrap.scrollLeft += (r.left + r.width / 2) - (w.left + w.width / 2);
    wrap.scrollTop += (r.top + r.height / 2) - (w.top + w.height / 2);
  }
  function flowList(title, items, dir) {
    if (!items || !items.length) return null;
    var box = el("div", "small");
    box.appendChild(el("div", "k muted", title));
    var ul = el("ul");
    items.forEach(function (it) {
      var li = el("li");
      li.appendChild(document.createTextNode(dir + " "));
      li.appendChild(stepLink(it[0]));
      li.appendChild(document.createTextNode(": " + it[1] + " (" + it[2] + ", " + it[3] + ")"));
      ul.appendChild(li);
    });
    box.appendChild(ul);
    return box;
  }
  function selectStep(i, scroll) {
    var s = data.steps[i];
    if (!s) return;
    current = i;
    clearMarks();
    var chip = chips[i];
    if (chip) {
      chip.classList.add("sel");
      if (scroll) reveal(chip);
    }
    svg.querySelectorAll(".e-step").forEach(function (p) {
      var a = +p.getAttribute("data-from"), b = +p.getAttribute("data-to");
      if (a === i || b === i) {
        p.classList.add("hot");
        var other = chips[a === i ? b : a];
        if (other) other.classList.add("rel");
      }
    });
    body.textContent = "";
    var h = el("h3", null, "Step " + i + " \u00b7 " + s.agent);
    body.appendChild(h);
    var tags = el("div");
    if (i === data.root) tags.appendChild(el("span", "badge root", "root cause"));
    if (data.candidates.indexOf(i) >= 0) tags.appendChild(el("span", "badge cand", "candidate"));
    if (s.loop) tags.appendChild(el("span", "badge loop", "loop group"));
    if (s.verdict) tags.appendChild(el("span", "badge " + (s.verdict.discrepancy ? "bad" : "ok"),
      s.verdict.discrepancy ? "deviates from oracle" : "consistent"));
    tags.childNodes.forEach(function (t) { t.style.marginRight = "5px"; });
    body.appendChild(tags);
    var nav = el("div", "nav");
    var prev = el("button", null, "\u2190 previous"), next = el("button", null, "next \u2192");
    prev.disabled = i <= 0; next.disabled = i >= data.steps.length - 1;
    prev.onclick = function () { selectStep(i - 1, true); };
    next.onclick = function () { selectStep(i + 1, true); };
    nav.appendChild(prev); nav.appendChild(next);
    body.appendChild(nav);
    var m = el("div", "meta");
    if (s.label !== s.agent) meta(m, "label", s.label);
    meta(m, "subtask", s.subtask);
    meta(m, "role", s.role);
    meta(m, "source id", s.source_id);
    if (s.verdict && s.verdict.reason) meta(m, "verdict", s.verdict.reason);
    body.appendChild(m);
    var fin = flowList("data in", s.inputs, "from"), fout = flowList("data out", s.outputs, "to");
    if (fin) body.appendChild(fin);
    if (fout) body.appendChild(fout);
    if (s.truncated) body.appendChild(el("p", "warn", "The reader shortened this step's content."));
    body.appendChild(el("pre", null, s.content));
  }
  function selectNode(id) {
    var n = data.nodes[id];
    if (!n) return;
    current = null;
    clearMarks();
    var g = svg.querySelector('.agent[data-node="' + id + '"]');
    if (g) g.classList.add("sel");
    n.steps.forEach(function (i) { if (chips[i]) chips[i].classList.add("rel"); });
    body.textContent = "";
    body.appendChild(el("h3", null, n.agent + " in " + n.subtask));
    if (n.implicit) body.appendChild(el("p", "muted small", "No OTAR record: this node is implied by the steps or edges."));
    if (n.verdict) body.appendChild(el("p", null, (n.verdict.discrepancy ? "Deviates: " : "Consistent: ") + n.verdict.reason));
    var m = el("div", "meta");
    ["observation", "thought", "action", "result"].forEach(function (k) { meta(m, k, n[k]); });
    body.appendChild(m);
    var steps = el("div", "small");
    n.steps.forEach(function (i) { steps.appendChild(stepLink(i)); steps.appendChild(document.createTextNode(" ")); });
    body.appendChild(steps);
  }
  function mark(list) {
    clearMarks();
    list.forEach(function (i) { if (chips[i]) chips[i].classList.add("mark"); });
    var first = chips[list[0]];
    if (first) { wrap.scrollIntoView({block: "nearest"}); reveal(first); }
  }

  document.addEventListener("click", function (ev) {
    var t = ev.target.closest("[data-step]");
    if (t && t.getAttribute("data-step") !== "") {
      ev.preventDefault();
      var inGraph = svg.contains(t);
      if (!inGraph) wrap.scrollIntoView({block: "nearest"});
      selectStep(+t.getAttribute("data-step"), !inGraph);
      return;
    }
    var hl = ev.target.closest("[data-mark]");
    if (hl) { mark(JSON.parse(hl.getAttribute("data-mark"))); return; }
    var n = ev.target.closest(".agent[data-node]");
    if (n) selectNode(n.getAttribute("data-node"));
  });
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    if ((ev.key === "Enter" || ev.key === " ") && t.classList && t.classList.contains("chip")) {
      ev.preventDefault(); selectStep(+t.getAttribute("data-step"), false);
    } else if (current !== null && (ev.key === "ArrowRight" || ev.key === "ArrowLeft") &&
               !/^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(t.tagName)) {
      selectStep(current + (ev.key === "ArrowRight" ? 1 : -1), true);
    }
  });
  document.querySelectorAll("input[data-toggle]").forEach(function (box) {
    box.addEventListener("change", function () { svg.classList.toggle(box.getAttribute("data-toggle"), !box.checked); });
  });
  if (data.root !== null && data.steps[data.root]) selectStep(data.root, true);
  else if (data.rootNode) selectNode(data.rootNode);
  document.body.setAttribute("data-ready", "1");
})();
"""


def legend() -> str:
    """The toolbar above the drawing: what each line and chip style means, and toggles for the edge levels."""
    def line(color: str, dash: str = "") -> str:
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        return (f'<svg width="30" height="10"><line x1="1" y1="5" x2="27" y2="5" stroke="{color}" '
                f'stroke-width="2"{extra}/></svg>')

    def chip(fill: str, stroke: str, dash: str = "") -> str:
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        return (f'<svg width="22" height="14"><rect x="1" y="1" width="20" height="12" rx="3" fill="{fill}" '
                f'stroke="{stroke}" stroke-width="1.5"{extra}/></svg>')

    items = [line(SUB_COLOR) + "subtask edge"]
    items += [line(c) + t.replace("_", " ") for t, (c, _) in AGENT_COLORS.items()]
    items += [line(FLOW_COLOR) + "data flow", line(FLOW_COLOR, "5 3") + "literal value flow",
              chip("#e6eaf5", "#a6b0ca") + "step", chip("#ffe2a0", "#d08a00") + "candidate",
              chip("#e6eaf5", "#7b4fb3", "3 2") + "loop group", chip("#d7263d", "#7a0010") + "root cause",
              ('<svg width="26" height="12"><circle cx="6" cy="6" r="5" fill="#c0392b"/>'
               '<circle cx="19" cy="6" r="5" fill="#23865a"/></svg>verdict: deviates / ok')]
    toggles = "".join(f'<label class="item"><input type="checkbox" checked data-toggle="hide-{k}">{n}</label>'
                      for k, n in (("sub", "subtask edges"), ("agent", "agent edges"), ("step", "data flow")))
    return '<div class="toolbar">' + "".join(f'<span class="item">{i}</span>' for i in items) + \
        f'<span class="item muted">show:</span>{toggles}</div>'
