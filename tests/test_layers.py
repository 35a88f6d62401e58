"""The shape of the package: each module imports on its own, no import cycles, no test double in the wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import import_graph  # noqa: E402


def test_every_module_imports_on_its_own_in_a_fresh_interpreter():
    """Each attrib module is imported first, with no other attrib module loaded (a hidden cycle fails)."""
    modules = sorted(import_graph.graph())
    script = (
        "import importlib, sys\n"
        f"failed = []\nfor name in {modules!r}:\n"
        "    for loaded in [m for m in sys.modules if m == 'attrib' or m.startswith('attrib.')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as exc:\n"
        "        failed.append(f'{name}: {type(exc).__name__}: {exc}')\n"
        "print('\\n'.join(failed))\n"
    )
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "", res.stdout
    assert len(modules) > 60


def test_the_import_graph_has_no_cycles():
    edges = import_graph._package_edges(import_graph.graph())
    assert import_graph.cycles(edges) == []
    # methods and CHIEF sit on the core layer; the core layer knows neither
    assert not any(d.startswith(("attrib.methods", "attrib.chief")) for m, ds in edges.items()
                   if m.startswith("attrib.core") for d in ds)
    assert not any(d.startswith("attrib.methods") for m, ds in edges.items() if m.startswith("attrib.chief") for d in ds)


def test_a_cycle_is_reported():
    assert import_graph.cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_wheel_ships_no_test_double_and_is_typed(tmp_path):
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                          "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    (wheel,) = tmp_path.glob("attrib-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "attrib/py.typed" in names and "attrib/prompts/system.txt" in names
    assert not [n for n in names if "mockserver" in n or "mock_answers" in n or n.startswith("tests/")]
