"""The step profiler: watches step boundaries, profiles a window of steady steps, and writes what it found."""

import os
import sys
import threading
import time
import traceback
import types

from tuning_bench_hooks import frames, torch_import

from . import inputs, results, steps as steady, syncs
from .phases import KINDS, ForwardByGaps, Phase, PhaseLog

SUMMARY_FILE = "summary.json"
TRACE_FILE = "trace.json"
CLAIM_FILE = "claim"
SUMMARY_VERSION = 2
# The defaults: 10 warm-up steps (compile, allocator and cache warm-up happen there), 10 profiled.
DEFAULT_WARMUP_STEPS = 10
DEFAULT_STEPS = 10
# A window that left steps out runs on to keep the steps asked for, up to this many times as many in all.
MAX_WINDOW_FACTOR = 2

INPUT_DEFINITION = (
    "waiting in a torch DataLoader iterator's __next__, plus the script's own batch code: calls from the training "
    "loop to the script's functions, methods or generators that run no model forward, backward or optimizer"
)


def say(message):
    try:
        sys.stderr.write("tuning_bench profile: %s\n" % message)
        sys.stderr.flush()
    except Exception:  # stderr may be gone
        pass


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
        self.watcher = None
        self.profiler = None
        self.cuda = False
        self.state = "waiting"  # waiting -> profiling -> done | failed | skipped
        self.main_thread = None
        self.step_started = None
        self.window_started_wall = None
        self.window_started = None
        self.first_step = None
        self.steps = []
        self.log = PhaseLog()
        self.phases = dict((kind, Phase(kind, self.log)) for kind in KINDS)
        self.no_grad = {"depth": 0, "entered": 0.0, "total": 0.0}
        self.save_seconds = 0.0
        # "hooks": forward is time inside top-level nn.Module calls; "gaps": see ForwardByGaps; "auto": hooks
        # unless the script calls torch.compile.
        self.forward_timing = str(config.get("forwardTiming", "auto"))
        if self.forward_timing not in ("auto", "hooks", "gaps"):
            raise ValueError("forwardTiming is auto, hooks or gaps, got %r" % (self.forward_timing,))
        self.compiled = False
        self.gaps = None
        self.window_hooks = []
        self.restore = []  # (owner, name, original) put back when the window closes
        self.previous_frames = []  # the script's frames at the last boundary before the window (to find the loop)
        self.input_tracer = None
        self.input_note = None
        self.sync_sites = None
        self.marker = None
        self.anchors = {}  # step -> perf_counter at its marker's start
        self.step_ops = {}  # step -> {kind: operators} filled at the end
        self.step_functions = {}  # step -> input calls of that step
        self.step_syncs = {}  # step -> sync sites of that step
        self.crowded = False
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
                    profiler.boundary(sys._getframe(1))

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
        self.boundary(sys._getframe(2))

    # ---- the window ---------------------------------------------------------------------------

    def boundary(self, caller=None):
        if self.state in ("done", "failed", "skipped"):
            return
        try:
            self.boundaries += 1
            if self.state == "waiting":
                if self.boundaries >= self.warmup:
                    self._start_window(caller)
                elif self.boundaries == self.warmup - 1 and caller is not None:
                    # Kept one step only: the loop is the frame that is still there at the next boundary.
                    self.previous_frames = frames.script_frames(caller)
            elif self.state == "profiling":
                self._close_step()
                if self._enough():
                    self._stop_window()
                else:
                    self._open_marker()
        except Exception as error:
            self._fail("profiling stopped", error)

    def _enough(self):
        if len(self.steps) < self.window:
            return False
        reasons, _ = steady.left_out(self.steps)
        kept = sum(1 for reason in reasons if reason is None)
        return kept >= self.window or len(self.steps) >= MAX_WINDOW_FACTOR * self.window

    def _start_window(self, caller):
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
        loop = None
        if caller is not None and self.previous_frames:
            loop = frames.loop_frame(self.previous_frames, frames.script_frames(caller))
        self.previous_frames = []
        self._install_window_hooks(torch, loop)
        self.profiler = torch.profiler.profile(activities=activities, record_shapes=False, with_stack=False)
        self.profiler.__enter__()
        for phase in self.phases.values():
            phase.take()
        self.state = "profiling"
        self.window_started_wall = opened_wall
        self.first_step = self.boundaries + 1
        self.window_started = self.step_started = time.perf_counter()
        if self.gaps is not None:
            self.gaps.reset(self.step_started)
        self._open_marker()

    def _open_marker(self):
        number = self.first_step + len(self.steps)
        marker = self.torch.autograd.profiler.record_function(results.STEP_MARKER + str(number))
        marker.__enter__()
        self.marker = marker
        self.anchors[number] = time.perf_counter()

    def _close_marker(self):
        if self.marker is not None:
            marker = self.marker
            self.marker = None
            marker.__exit__(None, None, None)

    def _install_window_hooks(self, torch, loop):
        forward = self.phases["forward"]
        no_grad = self.no_grad
        main = self.main_thread
        module_hooks = torch.nn.modules.module
        by_gaps = self.forward_timing == "gaps" or (self.forward_timing == "auto" and self.compiled)
        if by_gaps:
            self.gaps = ForwardByGaps()
            for kind in ("data", "backward", "optimizer"):
                self.phases[kind].gaps = self.gaps
            if self.compiled and self.forward_timing == "auto":
                self.notes.append("torch.compile in use: forward is timed from each batch to its backward() (loss included), "
                                  "since module hooks would make compiled code recompile")
            self.window_hooks = []
        else:
            grad_enabled = torch.is_grad_enabled

            def pre(module, inputs_):
                if threading.current_thread() is main:
                    if forward.depth == 0 and not grad_enabled():
                        no_grad["depth"] = 1
                        no_grad["entered"] = time.perf_counter()
                    forward.enter()

            def post(module, inputs_, output):
                if threading.current_thread() is main:
                    forward.leave()
                    if forward.depth == 0 and no_grad["depth"]:
                        no_grad["depth"] = 0
                        no_grad["total"] += time.perf_counter() - no_grad["entered"]

            self.window_hooks = [module_hooks.register_module_forward_pre_hook(pre),
                                 module_hooks.register_module_forward_hook(post)]
        self._wrap_module_attribute(torch.autograd, "backward", self.phases["backward"])
        self._time_saves(torch)
        # The script's own batch code: found from the loop, timed by a tracer (not with compiled models, which would see it).
        if loop is None:
            self.input_note = ("the training loop was not found in the script's own code (steps made inside a library, "
                               "or fewer than 2 warm-up steps): input is DataLoader waits only")
        elif self.compiled:
            self.input_note = "torch.compile in use: the script's own batch code is not timed (a tracer would make compiled code fall back); input is DataLoader waits only"
        else:
            tracer = inputs.InputTracer(loop, self.phases)
            refused = tracer.install()
            if refused:
                self.input_note = refused + "; input is DataLoader waits only"
            else:
                self.input_tracer = tracer
        if self.cuda and not self.compiled:
            self.sync_sites = syncs.SyncSites(torch)
            self.sync_sites.install()

    def _wrap_module_attribute(self, owner, name, phase):
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            phase.enter()
            try:
                return original(*args, **kwargs)
            finally:
                phase.leave()

        timed.__wrapped__ = original
        setattr(owner, name, timed)
        self.restore.append((owner, name, original))

    def _time_saves(self, torch):
        original = torch.save
        profiler = self

        def save(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                profiler.save_seconds += time.perf_counter() - started

        save.__wrapped__ = original
        torch.save = save
        self.restore.append((torch, "save", original))

    def _remove_window_hooks(self):
        if self.input_tracer is not None:
            self.input_tracer.remove()
        if self.sync_sites is not None:
            self.sync_sites.remove()
        for handle in self.window_hooks:
            handle.remove()
        self.window_hooks = []
        for phase in self.phases.values():
            phase.gaps = None
        for owner, name, original in reversed(self.restore):
            setattr(owner, name, original)
        self.restore = []

    def _close_step(self):
        if self.cuda:
            # Step times must include the GPU work the step queued; the profiler syncs anyway.
            self.torch.cuda.synchronize()
        self._close_marker()
        now = time.perf_counter()
        step_ms = (now - self.step_started) * 1000.0
        data, input_, forward, backward, optimizer = (self.phases[k].take() * 1000.0 for k in KINDS)
        if self.gaps is not None:
            forward = self.gaps.take() * 1000.0
            self.gaps.reset(now)
        no_grad_ms = self.no_grad["total"] * 1000.0
        self.no_grad["total"] = 0.0
        number = self.first_step + len(self.steps)
        if self.input_tracer is not None:
            self.step_functions[number] = self.input_tracer.take_step()
        if self.sync_sites is not None:
            self.step_syncs[number] = self.sync_sites.take_step()
        self.steps.append({
            "step": number,
            "endedAt": time.time(),
            "stepMs": step_ms,
            "dataLoadingMs": data,
            "inputMs": input_,
            "forwardMs": forward,
            "backwardMs": backward,
            "optimizerMs": optimizer,
            "otherMs": max(0.0, step_ms - data - input_ - forward - backward - optimizer),
            "noGradForwardMs": no_grad_ms,
            "saveMs": self.save_seconds * 1000.0,
        })
        self.save_seconds = 0.0
        self.step_started = now

    def _stop_window(self, cut_short=False):
        self.state = "done"
        ended = time.perf_counter()
        self._close_marker()
        self._remove_window_hooks()
        self.profiler.__exit__(None, None, None)
        if cut_short:
            self.notes.append("the script ended after %d of the %d profiled steps" % (len(self.steps), self.window))
        self._write_results((ended - self.window_started) * 1000.0)

    # ---- results ------------------------------------------------------------------------------

    def _judge_steps(self):
        reasons, crowded = steady.left_out(self.steps)
        for step, reason in zip(self.steps, reasons):
            step["kept"] = reason is None
            step["leftOut"] = reason
        self.crowded = crowded
        return [s for s in self.steps if s["kept"]]

    def _write_results(self, window_ms):
        summary = self._base_summary()
        kept = self._judge_steps()
        kept_numbers = set(s["step"] for s in kept)
        events = self.profiler.events()
        by_step, marker_spans = results.events_by_step(events)
        placer = results.PhasePlacer(self.log.intervals)
        table = {}
        for step in self.steps:
            own = by_step.get(step["step"], [])
            span = marker_spans.get(step["step"])
            anchor = self.anchors.get(step["step"])
            if span is not None and anchor is not None:
                step["opCounts"] = results.op_counts(own, span[0], anchor, placer)
            if step["kept"]:
                results.add_ops(table, own)
        if self.log.full:
            self.notes.append("more phase intervals than kept (%d): operators are placed in phases for the first of them only" % len(self.log.intervals))
        summary["keptSteps"] = len(kept)
        # More than half the steps were unusual: no steady window, nothing left out (the engine says so).
        summary["steadyWindow"] = not self.crowded
        summary["windowMs"] = window_ms
        summary["steps"] = self.steps
        summary["ops"] = results.ops_list(table, self.cuda)
        summary["input"] = {
            "definition": INPUT_DEFINITION if self.input_tracer is not None else "waiting in a torch DataLoader iterator's __next__",
            "traced": self.input_tracer is not None,
            "functions": inputs.top_functions(_summed(self.step_functions, kept_numbers), len(kept)),
            "note": self.input_note,
        }
        trace_path = os.path.join(self.out_dir, TRACE_FILE)
        try:
            self.profiler.export_chrome_trace(trace_path)
            summary["trace"] = TRACE_FILE
        except Exception as error:
            self.notes.append("the Chrome trace could not be written: %s" % error)
        self._from_trace(summary, trace_path, kept)
        # The profiler's span ends once its results are written: the step that waited for that is no steady step either,
        # and the script prints its step line only now.
        summary["window"]["endedAt"] = time.time()
        self._write_summary(summary)

    def _from_trace(self, summary, trace_path, kept):
        """Step and phase slices added to the trace; on CUDA, GPU busy time and device waits over the kept steps."""
        if summary["trace"] is None:
            return
        try:
            trace, events = results.read_trace(trace_path)
        except Exception as error:
            self.notes.append("the trace could not be read back (%s): no step markers in it%s" % (error, ", GPU idle time unknown" if self.cuda else ""))
            return
        markers = results.trace_markers(events)
        if self.cuda:
            spans = [(markers[s["step"]][0], markers[s["step"]][0] + markers[s["step"]][1]) for s in kept if s["step"] in markers]
            facts = results.device_facts(events, spans)
            kept_ms = sum(s["stepMs"] for s in kept)
            summary["gpu"] = {"kernels": facts["kernels"], "busyMs": facts["busyMs"], "idleMs": max(0.0, kept_ms - facts["busyMs"]),
                              "meanKernelUs": facts["meanKernelUs"]}
            try:
                summary["gpu"]["peakMemoryMiB"] = self.torch.cuda.max_memory_allocated() / 2.0 ** 20
            except Exception as error:
                self.notes.append("peak CUDA memory unknown: %s" % error)
            sites = _summed(self.step_syncs, set(s["step"] for s in kept)) if self.sync_sites is not None else {}
            summary["syncs"] = {
                "deviceWaits": facts["deviceWaits"],
                "memcpyDtoH": facts["memcpyDtoH"],
                "attributed": sum(sites.values()),
                "sites": syncs.top_sites(sites, len(kept)),
                "sitesTraced": self.sync_sites is not None,
            }
        try:
            if results.add_markers(trace, events, markers, self.steps, self.log.intervals, self.anchors):
                results.write_trace(trace_path, trace)
            else:
                self.notes.append("the trace has no step markers: the profiler did not record them")
        except Exception as error:
            self.notes.append("step and phase markers could not be added to the trace: %s" % error)

    def _base_summary(self):
        torch = self.torch
        torch_import = "imported" if torch is not None else ("failed: " + self.watcher.failure if self.watcher and self.watcher.failure else "never")
        return {
            "version": SUMMARY_VERSION,
            "tool": "torch.profiler",
            "torch": getattr(torch, "__version__", None) if torch else None,
            "torchImport": torch_import,
            "interpreter": sys.executable,
            "device": ("cuda" if self.cuda else "cpu") if torch else None,
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
            "keptSteps": 0,
            "steps": [],
            "ops": [],
            "syncs": None,
            "input": None,
            "gpu": None,
            "trace": None,
            "notes": self.notes,
        }

    def _write_summary(self, summary):
        import json

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
        say("%s (%s); training goes on without profiling" % (what, error))
        previous = self.state
        self.state = "failed"
        if previous == "profiling":
            try:
                self._close_marker()
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
            say("could not write %s: %s" % (SUMMARY_FILE, error))

    def at_exit(self):
        try:
            if self.state == "profiling":
                if self.steps:
                    self._stop_window(cut_short=True)
                    return
                self._close_marker()
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
                self.notes.append(self._no_torch())
            elif self.boundaries == 0:
                self.notes.append("no step boundary seen: no torch.optim optimizer stepped and tuning_bench.step() was not called")
            else:
                self.notes.append("the run made %d steps (%s), fewer than the %d warm-up steps the window waits for" % (
                    self.boundaries, self.boundary_source, self.warmup))
            self._write_failure_summary()
        except Exception as error:
            say("could not finish the profile: %s" % error)

    def _no_torch(self):
        failure = self.watcher.failure if self.watcher is not None else None
        if failure:
            return ("the script imports torch, but this Python (%s) cannot import it (%s): install PyTorch for this "
                    "interpreter, or run the command with a Python that has it" % (sys.executable, failure))
        if not torch_import.torch_importable():
            return ("the command never imported torch, and this Python (%s) has no torch to import: torch.profiler cannot "
                    "profile it" % sys.executable)
        return "the command never imported torch in this process (%s): torch.profiler cannot profile it" % sys.executable


def _summed(per_step, numbers):
    """Per-step tables ({key: [seconds, calls]} or {key: calls}) summed over the steps numbered in `numbers`."""
    total = {}
    for number, table in per_step.items():
        if number not in numbers:
            continue
        for key, value in table.items():
            if isinstance(value, list):
                entry = total.setdefault(key, [0.0, 0])
                entry[0] += value[0]
                entry[1] += value[1]
            else:
                total[key] = total.get(key, 0) + value
    return total
