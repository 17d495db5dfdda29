"""Tuning Bench's sitecustomize: a thin loader that hands on to the sitecustomize it shadows, then starts what a run asks for.

Tuning Bench puts this folder first on every run's PYTHONPATH, so Python imports this file at start-up instead of
any other ``sitecustomize``. So that nothing changes for the user, it first runs the ``sitecustomize`` that Python
would otherwise have found (the distribution's or the user's, the next one on ``sys.path``), then each feature of
FEATURES whose variable the run set, by importing its module and calling its ``install()``. Nothing else is
imported, so an unprofiled run starts as fast as without Tuning Bench. No step can stop the script: a failure prints
one line on stderr, as Python does for a broken sitecustomize.
"""

# (environment variable, module in this folder, what it is): a feature starts only when its variable is set.
FEATURES = (
    ("TUNING_BENCH_PROFILE", "tuning_bench_profiler", "profile"),
    ("TUNING_BENCH_KNOBS", "tuning_bench_knobs", "knobs"),
    # Every run has a channel: a Lightning script's logged numbers reach it (its terminal may show no loss).
    ("TUNING_BENCH_METRICS", "tuning_bench_lightning", "Lightning's numbers"),
    # ... and a Hugging Face Trainer's loss at every step (it prints one every logging_steps, 500 by default).
    ("TUNING_BENCH_METRICS", "tuning_bench_transformers", "the Trainer's losses"),
)


def _run_next_sitecustomize():
    # importlib.machinery is loaded with the interpreter; importlib.util would pull in contextlib and
    # collections (about 5 ms at every Python start-up, profiled or not), so the module is made by hand.
    import importlib.machinery
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    others = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is None or spec.loader is None or os.path.abspath(spec.origin or "") == os.path.abspath(__file__):
        return
    module = type(sys)(spec.name)
    module.__spec__ = spec
    module.__loader__ = spec.loader
    module.__file__ = spec.origin
    if spec.cached:
        module.__cached__ = spec.cached
    spec.loader.exec_module(module)


def _start():
    import os
    import sys

    try:
        _run_next_sitecustomize()
    except Exception as error:
        sys.stderr.write("Error in sitecustomize (chained by Tuning Bench); %s: %s\n" % (type(error).__name__, error))
    for variable, module_name, what in FEATURES:
        if not os.environ.get(variable):
            continue
        try:
            __import__(module_name).install()
        except Exception as error:
            sys.stderr.write("tuning_bench %s: not started (%s: %s); the script runs without it\n" % (what, type(error).__name__, error))


_start()
