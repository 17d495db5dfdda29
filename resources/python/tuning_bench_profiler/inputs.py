"""Input time outside a torch DataLoader: the script's own batch code, timed without changing the script.

Definition: a call made directly by the training loop (the innermost frame of the script that stays the same from
one step to the next) to code of the script's own (a function, a method, a generator resumed by ``next()`` or a
``for``) that runs no model forward, no backward and no optimizer; its time, less any DataLoader wait inside it,
is input. A call that does run the model (``estimate_loss()``, ``train_step()``) is not input: its time stays in the
phases it ran.

How: ``sys.settrace`` on the main thread for the window only; the tracer answers every new frame with one identity
test and follows only the loop's direct calls into the script's code. It is not installed when a debugger or a
coverage tool already traces the thread, nor for compiled models (torch.compile would see it).
"""

import sys
import time

from tuning_bench_hooks import frames

# Calls listed in the summary, by total time: the few that make up most of the input.
TOP_FUNCTIONS = 5


class InputTracer(object):
    def __init__(self, loop, phases):
        self.loop = loop
        self.phases = phases
        self.input = phases["input"]
        self.by_function = {}  # describe(code) -> [seconds, calls], over the window
        self.step_functions = {}  # the same, this step only (kept steps are summed by the window)
        self.installed = False

    def install(self):
        if sys.gettrace() is not None:
            return "another tool traces this thread (a debugger or coverage): the script's own batch code is not timed"
        sys.settrace(self._on_call)
        self.installed = True
        return None

    def remove(self):
        if self.installed:
            sys.settrace(None)
            self.installed = False

    def take_step(self):
        functions = self.step_functions
        self.step_functions = {}
        return functions

    def _model_time(self, now):
        phases = self.phases
        return phases["forward"].so_far(now) + phases["backward"].so_far(now) + phases["optimizer"].so_far(now)

    def _on_call(self, frame, event, arg):
        if frame.f_back is not self.loop or not frames.is_script_file(frame.f_code.co_filename):
            return None
        started = time.perf_counter()
        model_before = self._model_time(started)
        data_before = self.phases["data"].so_far(started)
        tracer = self

        def on_event(inner, inner_event, inner_arg):
            if inner_event != "return":
                return on_event
            ended = time.perf_counter()
            if tracer._model_time(ended) - model_before > 0.0:
                return None  # it ran the model: not input
            seconds = (ended - started) - (tracer.phases["data"].so_far(ended) - data_before)
            if seconds <= 0.0:
                return None
            tracer.input.add(seconds, started, ended)
            name = frames.describe(inner.f_code)
            for table in (tracer.by_function, tracer.step_functions):
                entry = table.setdefault(name, [0.0, 0])
                entry[0] += seconds
                entry[1] += 1
            return None

        frame.f_trace_lines = False
        return on_event


def top_functions(by_function, steps):
    """The input calls that took most, per step: [{function, msPerStep, callsPerStep}]."""
    if steps <= 0:
        return []
    ranked = sorted(by_function.items(), key=lambda item: item[1][0], reverse=True)[:TOP_FUNCTIONS]
    return [{"function": name, "msPerStep": seconds * 1000.0 / steps, "callsPerStep": calls / float(steps)} for name, (seconds, calls) in ranked]
