"""The core layer every method (baselines and CHIEF) builds on: run context, results, answers, options.

Dependencies point down: ``methods`` and ``chief`` import ``core``; ``core`` imports neither.
"""
