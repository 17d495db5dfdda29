"""Tuning Bench step profiler: torch.profiler over a window of steady steps, with no change to the script.

``sitecustomize.py`` (one folder up) calls ``install()`` when Tuning Bench sets ``TUNING_BENCH_PROFILE`` to a JSON
object::

    {"outDir": "/path/to/profile-dir", "warmupSteps": 10, "steps": 10}

What happens then (nothing at all when the variable is unset):

- Nothing is imported up front. An import hook waits for the script to import ``torch`` (``tuning_bench_hooks/torch_import.py``, shared with the knobs); a script
  that never does is left alone, and the summary says whether this interpreter could have imported it.
- Step boundaries: the end of every ``optimizer.step()`` (any ``torch.optim.Optimizer``, also when called by a
  GradScaler or an LR scheduler's wrapper), or ``tuning_bench.step()`` once the script calls it.
- After ``warmupSteps`` boundaries ``torch.profiler`` starts (CPU, and CUDA where in use); each step is wrapped in
  a ``tuning_bench step#N`` marker. Steps holding an evaluation, a checkpoint, or running far longer than the rest
  are left out, and the window runs on to keep ``steps`` steady ones (at most twice as many in all: steps.py).
- Phases are the main thread's wall time between two boundaries (phases.py): waiting in a DataLoader iterator's
  ``__next__`` (data loading), the script's own batch code called by the training loop (input: inputs.py), inside a
  top-level ``nn.Module`` call (forward; from the batch to ``backward()`` for compiled models), inside
  ``torch.autograd.backward``, inside ``optimizer.step``/``zero_grad``, and the rest (other). The hooks are on for
  the window only, so steps outside it run as they would without profiling.
- On CUDA, each host-device sync is attributed to the line of the script that asked for it (syncs.py); on a CPU
  there are none to count.
- It writes ``trace.json`` (Chrome trace, with step and phase slices on their own tracks: results.py) and
  ``summary.json`` (every operator of the kept steps, each step's phases and the operators each phase ran, syncs,
  GPU busy time, notes) to ``outDir``.
- It never breaks the script: any failure becomes a note in ``summary.json`` (and one line on stderr) and training
  goes on unprofiled.
- Several processes (DataLoader workers, one process per GPU): the first to reach the window claims it (a ``claim``
  file created exclusively in ``outDir``); the others do not profile.
"""

import atexit
import json
import os

ENV_VAR = "TUNING_BENCH_PROFILE"

_active = None


def active():
    """The profiler of this process, or None."""
    return _active


def install(raw=None):
    """Reads ``TUNING_BENCH_PROFILE`` and arranges the profile; never raises."""
    global _active
    raw = os.environ.get(ENV_VAR) if raw is None else raw
    if not raw or _active is not None:
        return None
    from tuning_bench_hooks.torch_import import when_imported

    from .window import StepProfiler, say

    try:
        config = json.loads(raw)
        if not isinstance(config, dict) or not config.get("outDir"):
            raise ValueError("expected a JSON object with outDir, got %r" % raw)
        profiler = StepProfiler(config)
    except Exception as error:
        say("%s is not usable (%s); running without profiling" % (ENV_VAR, error))
        return None
    _active = profiler
    atexit.register(profiler.at_exit)
    profiler.watcher = when_imported(profiler.on_torch_imported)
    return profiler
