"""Tuning Bench's sitecustomize: turns on the step profiler when a run asks for it, then hands on.

Tuning Bench puts this folder first on every run's PYTHONPATH, so Python imports this file at
start-up instead of any other ``sitecustomize``. So that nothing changes for the user, it first runs
the ``sitecustomize`` that Python would otherwise have found (the distribution's or the user's, the
next one on ``sys.path``), then, only when ``TUNING_BENCH_PROFILE`` is set, installs the profiler
of ``tuning_bench_profile.py``. Neither step can stop the script: a failure prints one line on
stderr, as Python does for a broken sitecustomize.
"""


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
    if os.environ.get("TUNING_BENCH_PROFILE"):
        try:
            import tuning_bench_profile

            tuning_bench_profile.install()
        except Exception as error:
            sys.stderr.write("tuning_bench profile: not started (%s: %s); the script runs unprofiled\n" % (type(error).__name__, error))


_start()
