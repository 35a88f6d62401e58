"""Where the model, endpoint and key come from.

Order of precedence (first wins):

1. flags: ``--model``, ``--base-url`` (``--model`` may also name a profile);
2. environment: ``ATTRIB_MODEL``, ``ATTRIB_BASE_URL``, ``ATTRIB_API_KEY`` (else ``OPENAI_API_KEY``);
3. ``attrib.toml`` (``--config``, ``$ATTRIB_CONFIG``, ``./attrib.toml``, then the user config dir)::

       default_profile = "deepseek"

       [profiles.deepseek]
       model = "deepseek-chat"
       base_url = "https://api.deepseek.com"
       api_key_env = "DEEPSEEK_API_KEY"   # name of the variable holding the key
       context_window = 128000

       [prices."deepseek-chat"]
       input = 0.28          # USD per 1M input tokens
       cached_input = 0.028  # USD per 1M input tokens served from the provider's prompt cache
       output = 0.42

4. nothing configured: the embedded demo model (``local``).

``mock`` answers with schema-valid samples in process: a zero-cost dry run of a pipeline.

``local`` runs SmolLM2-135M-Instruct in process; ``gguf:/path/model.gguf`` runs any local GGUF.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import BaseModel, Field, SecretStr

from ..errors import ConfigError
from .pricing import BUILTIN_PRICES, Price

LOCAL_MODEL = "local"
MOCK_MODEL = "mock"
DEFAULT_CONTEXT = 128_000
LOCAL_CONTEXT = 8192


class ModelSettings(BaseModel):
    """Everything needed to reach one model. The key is a SecretStr: it never prints."""

    model: str
    backend: str = Field(description="a registered backend: 'openai', 'local', 'mock' (attrib.llm.backends)")
    base_url: str | None = None
    api_key: SecretStr | None = Field(default=None, exclude=True, repr=False)
    context_window: int = DEFAULT_CONTEXT
    max_output_tokens: int = 1024
    temperature: float = 0.0
    seed: int = 0
    timeout: float = 120.0
    max_retries: int = 5
    concurrency: int = 8
    gguf_path: str | None = None
    profile: str | None = None

    @property
    def is_demo(self) -> bool:
        return self.backend == "local" and self.model == LOCAL_MODEL


class Config(BaseModel):
    path: str | None = None
    default_profile: str | None = None
    profiles: dict[str, dict[str, Any]] = Field(default_factory=dict)
    prices: dict[str, Price] = Field(default_factory=lambda: dict(BUILTIN_PRICES))


def find_config_file(explicit: str | Path | None = None) -> Path | None:
    candidates = [explicit, os.environ.get("ATTRIB_CONFIG"), Path.cwd() / "attrib.toml",
                  Path(platformdirs.user_config_dir("attrib")) / "attrib.toml"]
    for i, c in enumerate(candidates):
        if not c:
            continue
        p = Path(c)
        if p.is_file():
            return p
        if i < 2:  # an explicitly named file must exist
            raise ConfigError(f"{p}: config file not found")
    return None


def load_config(explicit: str | Path | None = None) -> Config:
    path = find_config_file(explicit)
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    prices = dict(BUILTIN_PRICES)
    for name, p in (data.get("prices") or {}).items():
        try:
            prices[name] = Price(**p)
        except (TypeError, ValueError) as exc:
            first = str(exc).splitlines()[:3]
            raise ConfigError(f"{path}: bad [prices.{json.dumps(name)}] entry ({' '.join(first)})") from None
    profiles = data.get("profiles") or {}
    if not isinstance(profiles, dict):
        raise ConfigError(f"{path}: [profiles] must be a table")
    return Config(path=str(path), default_profile=data.get("default_profile"), profiles=profiles, prices=prices)


def resolve(model: str | None = None, base_url: str | None = None, *, config: Config | None = None,
            api_key: str | None = None, **overrides: Any) -> ModelSettings:
    """Turn flags + environment + config file into ModelSettings (see module docstring)."""
    config = config or Config()
    unknown = sorted(set(overrides) - set(ModelSettings.model_fields))
    if unknown:
        raise ConfigError(f"unknown model setting(s) {', '.join(map(repr, unknown))} (known: {', '.join(ModelSettings.model_fields)})")
    model = model or os.environ.get("ATTRIB_MODEL")
    base_url = base_url or os.environ.get("ATTRIB_BASE_URL")
    profile_name = model if model in config.profiles else None
    if model is None and base_url is None and config.default_profile:
        profile_name = config.default_profile
        if profile_name not in config.profiles:
            raise ConfigError(f"{config.path}: default_profile {profile_name!r} is not a [profiles] entry")
    profile = dict(config.profiles.get(profile_name, {})) if profile_name else {}
    if profile_name:
        model = profile.get("model", model if model != profile_name else None)
        base_url = base_url or profile.get("base_url")
        if not model:
            raise ConfigError(f"{config.path}: profile {profile_name!r} has no 'model'")
    extra = {k: v for k, v in profile.items() if k in ModelSettings.model_fields and k not in ("model", "base_url", "api_key")}
    extra.update({k: v for k, v in overrides.items() if v is not None})

    if model is None and base_url is None:
        model = LOCAL_MODEL
    if model == MOCK_MODEL:
        return ModelSettings(model=model, backend="mock", profile=profile_name, **extra)
    if model is not None and (model == LOCAL_MODEL or model.startswith("gguf:")):
        gguf = model[5:] if model.startswith("gguf:") else None
        if gguf and not Path(gguf).is_file():
            raise ConfigError(f"{gguf}: GGUF model file not found")
        extra.setdefault("context_window", LOCAL_CONTEXT)
        extra.setdefault("concurrency", 1)
        return ModelSettings(model=model, backend="local", gguf_path=gguf, profile=profile_name, **extra)

    if model is None:
        raise ConfigError("--base-url given without --model (or ATTRIB_MODEL): say which model the endpoint should run")
    key = api_key or _key_from(profile) or os.environ.get("ATTRIB_API_KEY") or os.environ.get("OPENAI_API_KEY")
    if not key and base_url is None:
        raise ConfigError(f"model {model!r} needs an endpoint: give --base-url (or ATTRIB_BASE_URL) or set OPENAI_API_KEY for api.openai.com")
    return ModelSettings(model=model, backend="openai", base_url=base_url, api_key=SecretStr(key or "not-needed"),
                         profile=profile_name, **extra)


def _key_from(profile: dict[str, Any]) -> str | None:
    if profile.get("api_key_env"):
        return os.environ.get(str(profile["api_key_env"]))
    key = profile.get("api_key")
    return str(key) if key is not None else None
