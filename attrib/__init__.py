"""attrib: which agent made the decisive mistake in a failed multi-agent run, at which step, and why.

The library API lives in :mod:`attrib.api`; its functions are re-exported here.
"""

from .api import (
    CausalGraph,
    Comparison,
    EvalResult,
    MethodOptions,
    ScoreResult,
    compare,
    evaluate,
    export_graph,
    graph,
    kb_build,
    make_client,
    predict,
    predict_async,
    score,
)
from .attribution import Attribution, CallRecord
from .readers import load_log
from .trajectory import GoldLabel, Step, Trajectory

__all__ = ["Attribution", "CallRecord", "CausalGraph", "Comparison", "EvalResult", "GoldLabel", "MethodOptions",
           "ScoreResult", "Step", "Trajectory", "compare", "evaluate", "export_graph", "graph", "kb_build",
           "load_log", "make_client", "predict", "predict_async", "score"]
__version__ = "0.1.0"
