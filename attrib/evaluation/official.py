"""Parser for the text output of the official Who&When inference scripts.

The official scripts write one block per log::

    Prediction for 12.json:
    Agent Name: WebSurfer
    Step Number: 12
    Reason for Mistake: The agent clicked ...

    ==================================================

This parser is tolerant: markdown emphasis (``**Agent Name:** WebSurfer``), list bullets, extra
spaces, case differences and a value on the line after its field name are accepted; a missing
field gives None. The step text is kept as written (``step_text``) for the legacy scorer, and its
first integer is the parsed ``step``.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from ..errors import InputError

_HEADER = re.compile(r"^[\W_]*prediction\s+for\s+[*`\"']*([^\s:*`\"']+)[*`\"']*\s*[*]*\s*:", re.IGNORECASE | re.MULTILINE)
_FIELD = re.compile(
    r"^[\s>*#\-]*[*_`]*\s*(agent\s*name|step\s*number|reason\s*for\s*mistake)\s*[*_`]*\s*[:：]\s*(.*)$",
    re.IGNORECASE,
)
_SEPARATOR = re.compile(r"^\s*[=\-_*]{5,}\s*$")
_FIELD_NAMES = {"agentname": "agent", "stepnumber": "step", "reasonformistake": "reason"}
_INT = re.compile(r"-?\d+")
_DIGITS = re.compile(r"\d+")


class OfficialPrediction(BaseModel):
    """One block of the official output."""

    file: str
    case_id: str
    agent: str | None = None
    step_text: str | None = None
    step: int | None = None
    reason: str | None = None


def looks_official(text: str) -> bool:
    """True when ``text`` holds at least one ``Prediction for X.json:`` block."""
    return bool(_HEADER.search(text))


def _clean(value: str) -> str:
    """Drop markdown emphasis, code ticks and surrounding quotes/spaces."""
    value = value.replace("**", "").replace("`", "").strip()
    return value.strip("*_\"' \t").strip()


def _fields(body: str) -> dict[str, str]:
    """Field name -> raw value text (continuation lines appended for the reason)."""
    found: dict[str, list[str]] = {}
    current: str | None = None
    for line in body.splitlines():
        if _SEPARATOR.match(line):
            current = None
            continue
        m = _FIELD.match(line)
        if m:
            current = _FIELD_NAMES[re.sub(r"\s+", "", m.group(1).lower())]
            found.setdefault(current, [])
            if m.group(2).strip():
                found[current].append(m.group(2))
        elif current and line.strip():
            if current == "reason" or not found[current]:
                found[current].append(line)
            else:
                current = None
    return {k: "\n".join(v).strip() for k, v in found.items()}


def _agent(raw: str | None) -> str | None:
    if not raw:
        return None
    value = _clean(raw.splitlines()[0])
    value = re.sub(r"[.,;]+$", "", value).strip()
    return value or None


def parse_block(name: str, body: str) -> OfficialPrediction:
    """One ``Prediction for NAME:`` block."""
    fields = _fields(body)
    step_text = _clean(fields["step"].splitlines()[0]) if fields.get("step") else None
    match = _INT.search(step_text) if step_text else None
    reason = _clean(fields["reason"]) if fields.get("reason") else None
    return OfficialPrediction(
        file=name,
        case_id=Path(name).stem if name.lower().endswith(".json") else name,
        agent=_agent(fields.get("agent")),
        step_text=step_text or None,
        step=int(match.group()) if match else None,
        reason=reason or None,
    )


def parse_official(text: str) -> dict[str, OfficialPrediction]:
    """All blocks of an official output text, keyed by file name (``'12.json'``); a repeated file keeps the last."""
    headers = list(_HEADER.finditer(text))
    out: dict[str, OfficialPrediction] = {}
    for i, m in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        name = m.group(1).strip()
        out[name] = parse_block(name, text[m.end():end])
    return out


def read_official(path: str | Path) -> dict[str, OfficialPrediction]:
    """Parse an official output file; InputError when it holds no prediction block."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(p, f"cannot read: {exc.strerror or exc}") from None
    preds = parse_official(text)
    if not preds:
        raise InputError(p, "no 'Prediction for <file>.json:' blocks found")
    return preds


def official_step_digits(step_text: str | None) -> str | None:
    """The step string the official scorer compares: the first run of digits (None when there is none)."""
    if not step_text:
        return None
    m = _DIGITS.search(step_text)
    return m.group() if m else None
