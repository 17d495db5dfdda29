"""Tuning Bench step profiler: torch.profiler over a window of steady steps, with no change to the script.

``sitecustomize.py`` beside this file calls ``install()`` when Tuning Bench sets
``TUNING_BENCH_PROFILE`` to a JSON object::

    {"outDir": "/path/to/profile-dir", "warmupSteps": 10, "steps": 10}

What happens then (nothing at all when the variable is unset):

- Nothing is imported up front. An import hook waits for the script to import ``torch``; a script
  that never does is left alone (the summary says so).
- Step boundaries: the end of every ``optimizer.step()`` (any ``torch.optim.Optimizer``, also when
  called by a GradScaler or an LR scheduler's wrapper), or ``tuning_bench.step()`` once the script
  calls it (then optimizer steps no longer count).
- After ``warmupSteps`` boundaries ``torch.profiler`` starts (CPU, and CUDA where available); after
  ``steps`` more it stops and writes ``trace.json`` (Chrome trace: Perfetto, chrome://tracing) and
  ``summary.json`` (top operators by self time, each step's phases, host-device syncs, GPU idle
  time and peak memory where CUDA is traced) to ``outDir``.
- Phases are the main thread's wall time between two boundaries: waiting in a DataLoader iterator's
  ``__next__`` (data loading), inside a top-level ``nn.Module`` call (forward; for a script that calls
  ``torch.compile``, from the batch to ``backward()`` instead: see _ForwardByGaps), inside
  ``torch.autograd.backward`` (backward), inside ``optimizer.step``/``zero_grad`` (optimizer), and
  the rest (other: loss outside modules, ``.item()`` waits, logging). The hooks that measure them
  are installed for the window only, so steps outside it run as they would without profiling.
- It never breaks the script: any failure becomes a note in ``summary.json`` (and one line on
  stderr) and training goes on unprofiled.
- Several processes (DataLoader workers, one process per GPU): the first to reach the window claims
  it (a ``claim`` file created exclusively in ``outDir``); the others do not profile.
"""

import atexit
import importlib.abc
import importlib.util
import json
import os
import sys
import threading
import time
import traceback
import types

ENV_VAR = "TUNING_BENCH_PROFILE"
SUMMARY_FILE = "summary.json"
TRACE_FILE = "trace.json"
CLAIM_FILE = "claim"
SUMMARY_VERSION = 1
# The defaults: 10 warm-up steps (compile, allocator and cache warm-up happen there), 10 profiled.
DEFAULT_WARMUP_STEPS = 10
DEFAULT_STEPS = 10
# Enough operators for a bottleneck table; the trace keeps all of them.
TOP_OPS = 25
# Operator names that are the profiler's own markers, not work.
_MARKER_PREFIXES = ("ProfilerStep#", "[memory]")


def _say(message):
    try:
        sys.stderr.write("tuning_bench profile: %s\n" % message)
        sys.stderr.flush()
    except Exception:  # stderr may be gone
        pass


class _ForwardByGaps(object):
    """Forward time without module hooks: from a batch (or the last backward) to the next backward, less optimizer calls.

    Used when the script compiles its model (global module hooks added mid-run would make compiled code
    recompile), or when asked (``"forwardTiming": "gaps"``). It counts the loss and anything else between
    the batch and ``backward()`` as forward.
    """

    def __init__(self):
        self.mark = time.perf_counter()
        self.pending = 0.0
        self.total = 0.0

    def reset(self, now):
        self.mark = now
        self.pending = 0.0

    def before(self, kind, now):
        if kind == "data":
            self.pending = 0.0  # what ran since the last mark was the previous step's tail: other
        elif kind == "optimizer":
            self.pending += now - self.mark  # zero_grad() between forward and backward splits the forward
        elif kind == "backward":
            self.total += self.pending + now - self.mark
            self.pending = 0.0

    def after(self, now):
        self.mark = now

    def take(self):
        total = self.total
        self.total = 0.0
        return total


class _Phase(object):
    """Wall time of the main thread inside one kind of call, counted once however deeply nested."""

    __slots__ = ("kind", "depth", "entered", "total", "gaps")

    def __init__(self, kind):
        self.kind = kind
        self.depth = 0
        self.entered = 0.0
        self.total = 0.0
        self.gaps = None  # a _ForwardByGaps told of each outermost call, when forward is timed by gaps

    def enter(self):
        if self.depth == 0:
            self.entered = time.perf_counter()
            if self.gaps is not None:
                self.gaps.before(self.kind, self.entered)
        self.depth += 1

    def leave(self):
        if self.depth <= 0:
            return
        self.depth -= 1
        if self.depth == 0:
            now = time.perf_counter()
            self.total += now - self.entered
            if self.gaps is not None:
                self.gaps.after(now)

    def take(self):
        """The time so far this step (a call still open is split at now), reset for the next."""
        now = time.perf_counter()
        total = self.total
        if self.depth > 0:
            total += now - self.entered
            self.entered = now
        self.total = 0.0
        return total


class StepProfiler(object):
    def __init__(self, config):
        self.out_dir = str(config["outDir"])
        self.warmup = int(config.get("warmupSteps", DEFAULT_WARMUP_STEPS))
        self.window = int(config.get("steps", DEFAULT_STEPS))
        # The first boundary is the end of step 1: the window can start no earlier than after it.
        if self.warmup < 1 or self.window < 1:
            raise ValueError("warmupSteps and steps must be >= 1, got %r" % (config,))
        self.notes = []
        self.boundaries = 0
        self.boundary_source = "optimizer.step"
        self.torch = None
        self.profiler = None
        self.state = "waiting"  # waiting -> profiling -> done | failed | skipped
        self.main_thread = None
        self.step_started = None
        self.window_started_wall = None
        self.window_started = None
        self.steps = []
        self.phases = {kind: _Phase(kind) for kind in ("data", "forward", "backward", "optimizer")}
        # "hooks": forward is time inside top-level nn.Module calls; "gaps": see _ForwardByGaps; "auto": hooks
        # unless the script calls torch.compile.
        self.forward_timing = str(config.get("forwardTiming", "auto"))
        if self.forward_timing not in ("auto", "hooks", "gaps"):
            raise ValueError("forwardTiming is auto, hooks or gaps, got %r" % (self.forward_timing,))
        self.compiled = False
        self.gaps = None
        self.window_hooks = []
        self.original_backward = None
        self.lock = threading.RLock()

    # ---- installation -------------------------------------------------------------------------

    def on_torch_imported(self, torch):
        with self.lock:
            if self.torch is not None:
                return
            self.torch = torch
        try:
            self._patch_optimizer(torch)
            self._patch_dataloader(torch)
            self._watch_compile(torch)
        except Exception as error:
            self._fail("could not hook into PyTorch %s" % getattr(torch, "__version__", "?"), error)

    def _patch_optimizer(self, torch):
        profiler = self
        optimizer_class = torch.optim.Optimizer
        original_init = optimizer_class.__init__

        def __init__(optimizer, *args, **kwargs):
            original_init(optimizer, *args, **kwargs)
            try:
                profiler._wrap_optimizer(optimizer)
            except Exception as error:
                profiler._fail("could not watch %s.step" % type(optimizer).__name__, error)

        __init__.__wrapped__ = original_init
        optimizer_class.__init__ = __init__

    def _wrap_optimizer(self, optimizer):
        # Instance attributes: they shadow the class's step (which PyTorch itself patches for its
        # profiler annotations), and an LR scheduler created later wraps these in turn. They are bound
        # methods, as schedulers expect (they read step.__func__ and step.__self__), with the original's
        # signature (GradScaler inspects it).
        step = optimizer.step
        zero_grad = optimizer.zero_grad
        profiler = self
        phase = self.phases["optimizer"]

        def step_and_mark(_optimizer, *args, **kwargs):
            timing = profiler.state == "profiling"
            if timing:
                phase.enter()
            try:
                return step(*args, **kwargs)
            finally:
                if timing:
                    phase.leave()
                if profiler.boundary_source == "optimizer.step":
                    profiler.boundary()

        def timed_zero_grad(_optimizer, *args, **kwargs):
            if profiler.state != "profiling":
                return zero_grad(*args, **kwargs)
            phase.enter()
            try:
                return zero_grad(*args, **kwargs)
            finally:
                phase.leave()

        for wrapper, original in ((step_and_mark, step), (timed_zero_grad, zero_grad)):
            wrapper.__wrapped__ = getattr(original, "__func__", original)
            wrapper.__name__ = getattr(original, "__name__", wrapper.__name__)
            wrapper.__doc__ = getattr(original, "__doc__", None)
        optimizer.step = types.MethodType(step_and_mark, optimizer)
        optimizer.zero_grad = types.MethodType(timed_zero_grad, optimizer)

    def _watch_compile(self, torch):
        original = getattr(torch, "compile", None)
        if original is None:
            return  # PyTorch 1.x: nothing compiles
        profiler = self

        def compile(*args, **kwargs):
            profiler.compiled = True
            return original(*args, **kwargs)

        compile.__wrapped__ = original
        compile.__doc__ = original.__doc__
        torch.compile = compile

    def _patch_dataloader(self, torch):
        iterator_class = torch.utils.data.dataloader._BaseDataLoaderIter
        original_next = iterator_class.__next__
        profiler = self
        phase = self.phases["data"]

        def __next__(iterator):
            if profiler.state != "profiling" or threading.current_thread() is not profiler.main_thread:
                return original_next(iterator)
            phase.enter()
            try:
                return original_next(iterator)
            finally:
                phase.leave()

        __next__.__wrapped__ = original_next
        iterator_class.__next__ = __next__

    def marked_step(self):
        """``tuning_bench.step()``: from now on the script's own calls are the step boundaries."""
        if self.boundary_source != "tuning_bench.step":
            if self.state == "profiling":
                return  # switching mid-window would mix two kinds of step
            self.boundary_source = "tuning_bench.step"
            self.boundaries = 0
        self.boundary()

    # ---- the window ---------------------------------------------------------------------------

    def boundary(self):
        if self.state in ("done", "failed", "skipped"):
            return
        try:
            self.boundaries += 1
            if self.state == "waiting" and self.boundaries >= self.warmup:
                self._start_window()
            elif self.state == "profiling":
                self._close_step()
                if len(self.steps) >= self.window:
                    self._stop_window()
        except Exception as error:
            self._fail("profiling stopped", error)

    def _start_window(self):
        # Wall time before the profiler starts: the steps the profiler's own start-up slows are inside the span.
        opened_wall = time.time()
        try:
            os.makedirs(self.out_dir, exist_ok=True)
            fd = os.open(os.path.join(self.out_dir, CLAIM_FILE), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
        except FileExistsError:
            self.state = "skipped"  # another process of this run profiles
            return
        torch = self.torch
        activities = [torch.profiler.ProfilerActivity.CPU]
        self.cuda = bool(torch.cuda.is_available() and torch.cuda.is_initialized())
        if self.cuda:
            activities.append(torch.profiler.ProfilerActivity.CUDA)
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        self.main_thread = threading.current_thread()
        self._install_window_hooks(torch)
        self.profiler = torch.profiler.profile(activities=activities, record_shapes=False, with_stack=False)
        self.profiler.__enter__()
        for phase in self.phases.values():
            phase.take()
        self.state = "profiling"
        self.window_started_wall = opened_wall
        self.window_started = self.step_started = time.perf_counter()
        if self.gaps is not None:
            self.gaps.reset(self.step_started)
        self.first_step = self.boundaries + 1

    def _install_window_hooks(self, torch):
        forward = self.phases["forward"]
        main = self.main_thread
        module_hooks = torch.nn.modules.module
        by_gaps = self.forward_timing == "gaps" or (self.forward_timing == "auto" and self.compiled)
        if by_gaps:
            self.gaps = _ForwardByGaps()
            for kind in ("data", "backward", "optimizer"):
                self.phases[kind].gaps = self.gaps
            if self.compiled and self.forward_timing == "auto":
                self.notes.append("torch.compile in use: forward is timed from each batch to its backward() (loss included), "
                                  "since module hooks would make compiled code recompile")
            self.window_hooks = []
        else:
            def pre(module, inputs):
                if threading.current_thread() is main:
                    forward.enter()

            def post(module, inputs, output):
                if threading.current_thread() is main:
                    forward.leave()

            self.window_hooks = [module_hooks.register_module_forward_pre_hook(pre),
                                 module_hooks.register_module_forward_hook(post)]
        backward = self.phases["backward"]
        original = self.original_backward = torch.autograd.backward

        def timed_backward(*args, **kwargs):
            backward.enter()
            try:
                return original(*args, **kwargs)
            finally:
                backward.leave()

        timed_backward.__wrapped__ = original
        torch.autograd.backward = timed_backward

    def _remove_window_hooks(self):
        for handle in self.window_hooks:
            handle.remove()
        self.window_hooks = []
        for phase in self.phases.values():
            phase.gaps = None
        if self.original_backward is not None:
            self.torch.autograd.backward = self.original_backward
            self.original_backward = None

    def _close_step(self):
        if self.cuda:
            # Step times must include the GPU work the step queued; the profiler syncs anyway.
            self.torch.cuda.synchronize()
        now = time.perf_counter()
        step_ms = (now - self.step_started) * 1000.0
        self.step_started = now
        data, forward, backward, optimizer = (self.phases[k].take() * 1000.0 for k in ("data", "forward", "backward", "optimizer"))
        if self.gaps is not None:
            forward = self.gaps.take() * 1000.0
            self.gaps.reset(now)
        self.steps.append({
            "step": self.first_step + len(self.steps),
            "stepMs": step_ms,
            "dataLoadingMs": data,
            "forwardMs": forward,
            "backwardMs": backward,
            "optimizerMs": optimizer,
            "otherMs": max(0.0, step_ms - data - forward - backward - optimizer),
        })

    def _stop_window(self, cut_short=False):
        self.state = "done"
        ended = time.perf_counter()
        self._remove_window_hooks()
        self.profiler.__exit__(None, None, None)
        if cut_short:
            self.notes.append("the script ended after %d of the %d profiled steps" % (len(self.steps), self.window))
        self._write_results((ended - self.window_started) * 1000.0)

    # ---- results ------------------------------------------------------------------------------

    def _write_results(self, window_ms):
        torch = self.torch
        summary = self._base_summary()
        trace_path = os.path.join(self.out_dir, TRACE_FILE)
        try:
            self.profiler.export_chrome_trace(trace_path)
            summary["trace"] = TRACE_FILE
        except Exception as error:
            self.notes.append("the Chrome trace could not be written: %s" % error)
        step_total_ms = sum(s["stepMs"] for s in self.steps) or window_ms
        summary["windowMs"] = window_ms
        summary["steps"] = self.steps
        summary["ops"] = self._top_ops(step_total_ms)
        summary["syncs"] = self._syncs()
        if self.cuda:
            summary["gpu"] = self._gpu_from_trace(trace_path, step_total_ms)
            try:
                summary["gpu"]["peakMemoryMiB"] = torch.cuda.max_memory_allocated() / 2.0 ** 20
            except Exception as error:
                self.notes.append("peak CUDA memory unknown: %s" % error)
        self._write_summary(summary)

    def _base_summary(self):
        torch = self.torch
        return {
            "version": SUMMARY_VERSION,
            "tool": "torch.profiler",
            "torch": getattr(torch, "__version__", None) if torch else None,
            "device": ("cuda" if getattr(self, "cuda", False) else "cpu") if torch else None,
            "pid": os.getpid(),
            "boundary": self.boundary_source,
            "warmupSteps": self.warmup,
            "requestedSteps": self.window,
            "stepsSeen": self.boundaries,
            "window": {
                "fromStep": self.steps[0]["step"] if self.steps else None,
                "toStep": self.steps[-1]["step"] if self.steps else None,
                "startedAt": self.window_started_wall,
                "endedAt": time.time() if self.window_started_wall else None,
            },
            "steps": [],
            "ops": [],
            "syncs": None,
            "gpu": None,
            "trace": None,
            "notes": self.notes,
        }

    def _top_ops(self, step_total_ms):
        averages = self.profiler.key_averages()
        ops = []
        for event in averages:
            name = event.key
            if name.startswith(_MARKER_PREFIXES):
                continue
            cpu_us = float(getattr(event, "self_cpu_time_total", 0.0) or 0.0)
            # PyTorch 2.4+ calls device time self_device_time_total; older ones self_cuda_time_total.
            cuda_us = float(getattr(event, "self_device_time_total", None) or getattr(event, "self_cuda_time_total", 0.0) or 0.0)
            ops.append({
                "name": name,
                "calls": int(event.count),
                "selfCpuMs": cpu_us / 1000.0,
                "selfCudaMs": cuda_us / 1000.0 if self.cuda else None,
            })
        # On a GPU what bounds a step is device time; ops that only launch rank by their CPU side.
        key = (lambda op: (op["selfCudaMs"] or 0.0, op["selfCpuMs"])) if self.cuda else (lambda op: op["selfCpuMs"])
        ops.sort(key=key, reverse=True)
        self.op_calls = {op["name"]: op["calls"] for op in ops}
        return ops[:TOP_OPS]

    def _syncs(self):
        calls = getattr(self, "op_calls", {})
        summary = {
            # aten::item is what .item(), float(t), int(t) and bool(t) call; each waits for the device.
            "itemCalls": calls.get("aten::item", calls.get("aten::_local_scalar_dense", 0)),
            "streamSyncs": None,
            "memcpyDtoH": None,
        }
        if self.cuda:
            summary["streamSyncs"] = sum(calls.get(name, 0) for name in ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize"))
        return summary

    def _gpu_from_trace(self, trace_path, step_total_ms):
        """Kernel busy time, idle gaps and device-to-host copies, read back from the Chrome trace."""
        gpu = {"kernels": None, "busyMs": None, "idleMs": None, "meanKernelUs": None}
        try:
            with open(trace_path, "r") as f:
                trace = json.load(f)
            # Chrome's trace format has two forms: {"traceEvents": [...]} (Kineto) and a bare array (the legacy profiler).
            events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
        except Exception as error:
            self.notes.append("GPU idle time unknown: the trace could not be read back (%s)" % error)
            return gpu
        spans = []
        kernels = 0
        dtoh = 0
        for event in events:
            category = str(event.get("cat", "")).lower()
            name = str(event.get("name", ""))
            if category in ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset") and "dur" in event:
                spans.append((float(event["ts"]), float(event["ts"]) + float(event["dur"])))
                if category == "kernel":
                    kernels += 1
                if "dtoh" in name.lower().replace(" ", ""):
                    dtoh += 1
        spans.sort()
        busy_us = 0.0
        end = None
        for start, stop in spans:
            if end is None or start > end:
                busy_us += stop - start
                end = stop
            elif stop > end:
                busy_us += stop - end
                end = stop
        gpu["kernels"] = kernels
        gpu["busyMs"] = busy_us / 1000.0
        gpu["idleMs"] = max(0.0, step_total_ms - busy_us / 1000.0)
        kernel_us = [s[1] - s[0] for s in spans]
        gpu["meanKernelUs"] = (sum(kernel_us) / len(kernel_us)) if kernel_us else None
        if self.cuda:
            self.dtoh = dtoh
        return gpu

    def _write_summary(self, summary):
        if summary.get("syncs") and getattr(self, "dtoh", None) is not None:
            summary["syncs"]["memcpyDtoH"] = self.dtoh
        os.makedirs(self.out_dir, exist_ok=True)
        target = os.path.join(self.out_dir, SUMMARY_FILE)
        temporary = "%s.%d.tmp" % (target, os.getpid())
        with open(temporary, "w") as f:
            json.dump(summary, f, allow_nan=False, default=str)
        os.replace(temporary, target)

    # ---- failure and exit ---------------------------------------------------------------------

    def _fail(self, what, error):
        self.notes.append("%s: %s: %s (%s)" % (
            what, type(error).__name__, error, traceback.format_exc(limit=3).strip().splitlines()[-1]))
        _say("%s (%s); training goes on without profiling" % (what, error))
        previous = self.state
        self.state = "failed"
        if previous == "profiling":
            try:
                self._remove_window_hooks()
                self.profiler.__exit__(None, None, None)
            except Exception:
                pass
        self._write_failure_summary()

    def _write_failure_summary(self):
        try:
            summary = self._base_summary()
            summary["tool"] = "torch.profiler" if self.torch is not None else None
            summary["steps"] = self.steps
            self._write_summary(summary)
        except Exception as error:
            _say("could not write %s: %s" % (SUMMARY_FILE, error))

    def at_exit(self):
        try:
            if self.state == "profiling":
                if self.steps:
                    self._stop_window(cut_short=True)
                    return
                self._remove_window_hooks()
                self.profiler.__exit__(None, None, None)
                self.state = "done"
            if self.state in ("done", "skipped", "failed"):
                return
            # Only a process that stepped, or the first to leave a word, says why there is no profile:
            # a DataLoader worker must not hide the main process's summary.
            if self.boundaries == 0 and os.path.exists(os.path.join(self.out_dir, SUMMARY_FILE)):
                return
            if self.torch is None:
                self.notes.append("the command never imported torch in this process: torch.profiler cannot profile it")
            elif self.boundaries == 0:
                self.notes.append("no step boundary seen: no torch.optim optimizer stepped and tuning_bench.step() was not called")
            else:
                self.notes.append("the run made %d steps (%s), fewer than the %d warm-up steps the window waits for" % (
                    self.boundaries, self.boundary_source, self.warmup))
            self._write_failure_summary()
        except Exception as error:
            _say("could not finish the profile: %s" % error)


class _TorchImportWatcher(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when ``torch`` is imported, lets the real finder load it, then hooks in."""

    def __init__(self, on_import):
        self.on_import = on_import
        self.busy = False

    def find_spec(self, name, path=None, target=None):
        if name != "torch" or self.busy:
            return None
        self.busy = True
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        original_exec = spec.loader.exec_module
        on_import = self.on_import
        watcher = self

        def exec_module(module):
            original_exec(module)
            try:
                sys.meta_path.remove(watcher)
            except ValueError:
                pass
            on_import(module)

        spec.loader.exec_module = exec_module
        return spec


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
    try:
        config = json.loads(raw)
        if not isinstance(config, dict) or not config.get("outDir"):
            raise ValueError("expected a JSON object with outDir, got %r" % raw)
        profiler = StepProfiler(config)
    except Exception as error:
        _say("%s is not usable (%s); running without profiling" % (ENV_VAR, error))
        return None
    _active = profiler
    atexit.register(profiler.at_exit)
    if "torch" in sys.modules and hasattr(sys.modules["torch"], "optim"):
        profiler.on_torch_imported(sys.modules["torch"])
    else:
        sys.meta_path.insert(0, _TorchImportWatcher(profiler.on_torch_imported))
    return profiler
