"""Shared fixtures: an isolated answer cache and config, the Who&When data folders, a mock-server factory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from attrib.mockserver import MockServer

REPO = Path(__file__).resolve().parents[1]
WHO_AND_WHEN = REPO.parent / "shared" / "datasets" / "who_and_when"
API_KEY = "sk-test-SECRET-key-123456"


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """Every test gets its own empty answer cache and no model/endpoint/key from the environment."""
    monkeypatch.setenv("ATTRIB_CACHE_DIR", str(tmp_path_factory.mktemp("attrib-cache")))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    for name in ("ATTRIB_MODEL", "ATTRIB_BASE_URL", "ATTRIB_API_KEY", "OPENAI_API_KEY", "ATTRIB_CONFIG"):
        monkeypatch.delenv(name, raising=False)


def _subset(name: str) -> Path:
    folder = WHO_AND_WHEN / name
    if not folder.is_dir():
        pytest.skip(f"Who&When data not found at {folder}")
    return folder


@pytest.fixture(scope="session")
def alg_dir() -> Path:
    """../shared/datasets/who_and_when/algorithm-generated (skips when absent)."""
    return _subset("algorithm-generated")


@pytest.fixture(scope="session")
def hand_dir() -> Path:
    """../shared/datasets/who_and_when/hand-crafted (skips when absent)."""
    return _subset("hand-crafted")


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
