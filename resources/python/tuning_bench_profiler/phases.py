"""Where the main thread's wall time goes within a step: phases timed by hooks, each call counted once however nested.

A phase's outermost calls are also logged as intervals (perf_counter seconds), so operators can be assigned to the
phase they ran in (the profiler's overhead falls where the operators are) and the trace can show phases as slices.
"""

import time

# The phases timed by hooks; "other" is the step's rest. "input" is the script's own batch code (inputs.py).
KINDS = ("data", "input", "forward", "backward", "optimizer")
# Intervals logged per window at most: a step with thousands of outermost module calls (gradient accumulation over
# many micro-batches) still fits; past it, phases are still timed but no longer drawn or used to place operators.
MAX_INTERVALS = 200000


class PhaseLog(object):
    """The outermost intervals of every phase in the window, in order of their end."""

    def __init__(self):
        self.intervals = []  # (kind, start, end) in perf_counter seconds
        self.full = False

    def add(self, kind, start, end):
        if len(self.intervals) >= MAX_INTERVALS:
            self.full = True
            return
        self.intervals.append((kind, start, end))


class Phase(object):
    """Wall time of the main thread inside one kind of call, counted once however deeply nested."""

    __slots__ = ("kind", "depth", "entered", "total", "grand", "gaps", "log")

    def __init__(self, kind, log):
        self.kind = kind
        self.depth = 0
        self.entered = 0.0
        self.total = 0.0  # this step's, reset by take()
        self.grand = 0.0  # since the window opened, never reset: what a call's share of each phase is read from
        self.gaps = None  # a ForwardByGaps told of each outermost call, when forward is timed by gaps
        self.log = log

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
            self.grand += now - self.entered
            if self.log is not None:
                self.log.add(self.kind, self.entered, now)
            if self.gaps is not None:
                self.gaps.after(now)

    def so_far(self, now):
        """Time in this phase since the window opened, a call still open counted up to now."""
        return self.grand + (now - self.entered if self.depth > 0 else 0.0)

    def add(self, seconds, start, end):
        """Time measured elsewhere (the script's batch code, inputs.py) counted in this phase."""
        self.total += seconds
        self.grand += seconds
        if self.log is not None:
            self.log.add(self.kind, start, end)

    def take(self):
        """The time so far this step (a call still open is split at now), reset for the next."""
        now = time.perf_counter()
        total = self.total
        if self.depth > 0:
            total += now - self.entered
            self.grand += now - self.entered
            if self.log is not None:
                self.log.add(self.kind, self.entered, now)
            self.entered = now
        self.total = 0.0
        return total


class ForwardByGaps(object):
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
