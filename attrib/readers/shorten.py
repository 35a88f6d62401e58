"""Shortening of enormous step contents before they reach any prompt.

Logs from browsing or multimodal agents carry steps that are mostly noise for
attribution: whole HTML pages, screenshots as base64 data URIs, dumps of
files. ``shorten_content`` brings such a step under a character budget:

1. content at or under the limit is returned unchanged (never touched);
2. base64 payloads (``data:...;base64,...`` URIs, and bare runs of at least
   200 base64 characters) become ``[base64 data, N chars removed]``;
3. if it is still too long and looks like an HTML page, ``<script>``/``<style>``
   blocks, comments and tags are dropped and entities unescaped, behind the
   line ``[HTML tags stripped by attrib]``;
4. if it is still too long, the head and the tail are kept around the marker
   ``[... N characters cut by attrib ...]``.

Readers call it on every step and list the steps it changed in
``Trajectory.truncated_steps`` (see :class:`attrib.readers.common.StepBuilder`).
"""

from __future__ import annotations

import html
import re

DEFAULT_LIMIT = 20_000
"""Characters kept per step by the readers (about 5k tokens)."""

_DATA_URI = re.compile(r"data:[\w.+\-]+/[\w.+\-]+(?:;[\w\-]+=[\w\-]+)*;base64,[A-Za-z0-9+/=\s]+")
_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{200,}={0,2}")
_TAG = re.compile(r"<[A-Za-z!/][^<>]*>")
_HTML_BLOCKS = re.compile(r"<(script|style|svg|noscript)\b[^>]*>.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_BLANKS = re.compile(r"\n\s*\n+")
_SPACES = re.compile(r"[ \t\r\f\v]+")

HTML_MARKER = "[HTML tags stripped by attrib]"


def _base64_marker(match: re.Match[str]) -> str:
    return f"[base64 data, {len(match.group(0))} chars removed]"


def drop_base64(text: str) -> str:
    """Replace data URIs and long base64 runs by a short marker."""
    text = _DATA_URI.sub(_base64_marker, text)
    return _BASE64_RUN.sub(_base64_marker, text)


def looks_like_html(text: str) -> bool:
    """True for text that is mostly markup (many tags, or an ``<html>``/``<body>`` page)."""
    head = text[:5000].lower()
    if "<html" in head or "<!doctype html" in head or "<body" in head:
        return True
    tags = len(_TAG.findall(text[:200_000]))
    return tags >= 50 and tags * 20 > min(len(text), 200_000) / 10


def strip_html(text: str) -> str:
    """Visible text of an HTML page, blank lines collapsed."""
    text = _HTML_BLOCKS.sub(" ", text)
    text = _TAG.sub("\n", text)
    text = html.unescape(text)
    text = _SPACES.sub(" ", text)
    lines = (line.strip() for line in text.split("\n"))
    text = "\n".join(line for line in lines if line)
    return _BLANKS.sub("\n", text)


def head_tail(text: str, limit: int) -> str:
    """Keep about 60% of ``limit`` from the head and the rest from the tail around a marker."""
    if len(text) <= limit:
        return text
    marker_room = 60
    keep = max(limit - marker_room, 2)
    head_len = (keep * 3) // 5
    tail_len = keep - head_len
    cut = len(text) - head_len - tail_len
    tail = text[len(text) - tail_len:] if tail_len else ""
    return f"{text[:head_len]}\n[... {cut} characters cut by attrib ...]\n{tail}"


def shorten_content(text: str, limit: int = DEFAULT_LIMIT) -> tuple[str, bool]:
    """``(text, was_cut)``: ``text`` brought under about ``limit`` characters (see the module docstring)."""
    if len(text) <= limit:
        return text, False
    out = drop_base64(text)
    if len(out) > limit and looks_like_html(out):
        out = f"{HTML_MARKER}\n{strip_html(out)}"
    out = head_tail(out, limit)
    return out, out != text
