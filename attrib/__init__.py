"""attrib: which agent made the decisive mistake in a failed multi-agent run, at which step, and why."""

from .api import make_client, predict, predict_async
from .attribution import Attribution, CallRecord
from .readers import load_log
from .trajectory import GoldLabel, Step, Trajectory

__all__ = ["Attribution", "CallRecord", "GoldLabel", "Step", "Trajectory", "load_log", "make_client", "predict",
           "predict_async"]
__version__ = "0.1.0"
