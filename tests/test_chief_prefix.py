"""CHIEF's shared prefix: every call of every ablation starts with All-at-Once's bytes up to the end of the log."""

from __future__ import annotations

import pytest
from mock_answers import make_realistic_responder

from attrib import prompts
from attrib.api import predict
from attrib.llm.tokens import count_tokens
from attrib.readers import load_log

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
