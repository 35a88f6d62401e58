"""CHIEF's shared prefix: every call of every ablation starts with All-at-Once's bytes up to the end of the log."""

from __future__ import annotations

import pytest

from attrib import prompts
from attrib.api import predict
from attrib.llm.tokens import count_tokens
from attrib.readers import load_log

from mock_answers import make_realistic_responder

HAND_LOGS = ["1", "5", "6", "11", "24", "48", "49"]
LOG_END = "\n\nSteps are counted from 0"  # where All-at-Once's instructions begin, right after the log


def _prefix(srv) -> tuple[str, str]:
    """(system message, user-message head) of the All-at-Once request the server received."""
    req = srv.requests[-1].body["messages"]
    user = req[1]["content"]
    return req[0]["content"], user[: user.index(LOG_END)]


@pytest.mark.parametrize("name", HAND_LOGS)
def test_every_stage_shares_all_at_once_prefix(hand_dir, mock_server, make_llm, name):
    traj = load_log(hand_dir / f"{name}.json")
    srv = mock_server(make_realistic_responder())
    client = make_llm(srv)
    assert predict(traj, "all-at-once", client=client).status == "ok"
    system, head = _prefix(srv)
    assert head.count("\n--- step ") + head.startswith("--- step ") == traj.n_steps  # the whole log is in it
    assert head.endswith("</content>")
    before = len(srv.requests)
    for modules in ("full", "m1", "m1+m2", "m1+m3"):
        att = predict(traj, "chief", client=client, chief_modules=modules)
        assert att.status == "ok", att.error
    requests = srv.requests[before:]
    stages = {r.body["response_format"]["json_schema"]["name"] for r in requests}
    # the ablations reuse identical graph and backtracking calls from the answer cache
    assert stages == {"GraphDraft", "Backtracking", "Screening", "AgentStepAnswer"}
    head_tokens = count_tokens(system) + count_tokens(head)
    for req in requests:
        messages = req.body["messages"]
        assert [m["role"] for m in messages] == ["system", "user"]
        assert messages[0]["content"] == system
        # then the judging rules, shared by every CHIEF stage, before the stage's own instructions
        assert messages[1]["content"].startswith(head + "\n\n" + prompts.template("chief/rules") + "\n\n")
        share = head_tokens / (count_tokens(system) + count_tokens(messages[1]["content"]))
        assert share >= 0.60, (name, round(share, 3), messages[1]["content"][len(head):][:200])


def test_log_too_long_for_the_window_is_cut_once_for_every_stage(hand_dir, mock_server, make_llm):
    traj = load_log(hand_dir / "49.json")  # holds a 24k-character step
    srv = mock_server(make_realistic_responder())
    att = predict(traj, "chief", client=make_llm(srv, context_window=12000))
    assert att.status == "ok", att.error
    assert any("shortened to" in n for n in att.notices)
    views = att.details["stage_views"]
    assert len(views) == 3 and all(v["shortened"] and v["shortened"] == views[0]["shortened"] for v in views)
    heads = {r.body["messages"][1]["content"].split("\n\nHow to judge", 1)[0] for r in srv.requests}
    assert len(heads) == 1 and "characters cut by attrib" in heads.pop()
