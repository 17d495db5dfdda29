"""What Tuning Bench's features inside a Python run share: one hook on ``import torch``, the script's own frames, top-level ``nn.Module`` calls.

The step profiler (``tuning_bench_profiler``) and the knobs (``tuning_bench_knobs``) both hook into the script's
PyTorch; each goes through these, so two features on one run make one import hook and one ``Module.__call__`` patch.
"""
