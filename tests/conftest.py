"""Shared fixtures: an isolated answer cache and config, the Who&When data folders, a mock-server factory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mockserver import MockServer

REPO = Path(__file__).resolve().parents[1]
# A vendored subset of Who&When (MIT, LICENSE beside it): the suite never needs ../shared.
# The full benchmark in ../shared/datasets/who_and_when is for scripts/ benchmarks.
WHO_AND_WHEN = REPO / "tests" / "data" / "who_and_when"
API_KEY = "sk-test-SECRET-key-123456"


def write_variant(source: Path, tmp_path: Path, change) -> Path:
    """A copy of the JSON fixture ``source`` with ``change(data)`` applied, written under ``tmp_path``."""
    data = json.loads(source.read_text())
    change(data)
    path = tmp_path / f"variant{source.suffix}"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """Every test gets its own empty answer cache and no model/endpoint/key from the environment."""
    monkeypatch.setenv("ATTRIB_CACHE_DIR", str(tmp_path_factory.mktemp("attrib-cache")))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    for name in ("ATTRIB_MODEL", "ATTRIB_BASE_URL", "ATTRIB_API_KEY", "OPENAI_API_KEY", "ATTRIB_CONFIG"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def alg_dir() -> Path:
    """tests/data/who_and_when/algorithm-generated: 12 vendored logs (1, 3, 12 and the ten shortest)."""
    return WHO_AND_WHEN / "algorithm-generated"


@pytest.fixture(scope="session")
def hand_dir() -> Path:
    """tests/data/who_and_when/hand-crafted: 7 vendored logs (1, 5, 6, 11, 24, 48, 49 with a 24k-character step)."""
    return WHO_AND_WHEN / "hand-crafted"


@pytest.fixture
def cache_dir() -> Path:
    """This test's answer cache folder ($ATTRIB_CACHE_DIR)."""
    return Path(os.environ["ATTRIB_CACHE_DIR"])


@pytest.fixture
def mock_server():
    """Factory: ``mock_server(responder, **kw)`` starts a MockServer that is stopped after the test."""
    started: list[MockServer] = []

    def start(responder=None, **kw) -> MockServer:
        srv = MockServer(responder, **kw).start()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()


@pytest.fixture
def make_llm():
    """Factory: ``make_llm(srv, model=..., **settings)`` -> an LLMClient on the mock server, fast retries."""
    from attrib.api import make_client

    def build(srv: MockServer, model: str = "mock-model", *, cache=True, offline=False, max_retries=3,
              timeout=5.0, **settings):
        client = make_client(model, srv.url, api_key=API_KEY, cache=cache, offline=offline,
                             max_retries=max_retries, timeout=timeout, **settings)
        client.retry_base_delay = 0.01
        return client

    return build


def _child_processes() -> list[str]:
    """Live (non-zombie) child processes of this test run, as 'pid command' strings (Linux /proc)."""
    me, found = str(os.getpid()), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[1] == me and fields[0] != "Z":
                command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                found.append(f"{stat.parent.name} {command[:120]}")
        except (OSError, IndexError):
            continue
    return found


@pytest.fixture(scope="session", autouse=True)
def _nothing_outlives_the_suite():
    """At the end of the run, no process a test started and no mock server thread may still be running."""
    yield
    import threading

    servers = [t.name for t in threading.enumerate() if t.name.startswith("attrib-mockserver")]
    children = _child_processes() if Path("/proc").is_dir() else []
    assert not servers and not children, f"left running: threads {servers}, processes {children}"
