"""What the window's steps add up to: operators per kept step, the operators each phase ran (where the profiler's own
overhead falls), GPU busy time and device syncs from the trace, and step and phase slices added to the trace."""

import bisect
import json
import os

from .phases import KINDS

# The marker each step is wrapped in (a torch.profiler user annotation): what places operators in their step.
STEP_MARKER = "tuning_bench step#"
# Operator names that are markers, not work.
MARKER_PREFIXES = (STEP_MARKER, "ProfilerStep#", "[memory]")
# Thread ids of the tracks the trace gets for steps and phases: far above any real thread id a trace shows.
STEPS_TRACK_TID = 9000001
PHASES_TRACK_TID = 9000002
# CUDA runtime calls in which the host waits for the device (the trace's cuda_runtime events).
DEVICE_WAITS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpy2D")
_DEVICE_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset")


def _device_us(event):
    # PyTorch 2.4+ calls device time self_device_time_total; older ones self_cuda_time_total.
    value = getattr(event, "self_device_time_total", None)
    if value is None:
        value = getattr(event, "self_cuda_time_total", 0.0)
    return float(value or 0.0)


def events_by_step(events):
    """{step: [operator events]} from the profiler's events, by the step marker each starts in; and the markers' spans."""
    markers = {}
    for event in events:
        if event.name.startswith(STEP_MARKER):
            try:
                markers[int(event.name[len(STEP_MARKER):])] = (float(event.time_range.start), float(event.time_range.end))
            except ValueError:
                pass
    order = sorted(markers.items(), key=lambda item: item[1][0])
    starts = [span[0] for _, span in order]
    by_step = {step: [] for step in markers}
    for event in events:
        if event.name.startswith(MARKER_PREFIXES):
            continue
        at = bisect.bisect_right(starts, float(event.time_range.start)) - 1
        if at < 0:
            continue
        step, (start, end) = order[at]
        if float(event.time_range.start) <= end:
            by_step[step].append(event)
    return by_step, markers


def add_ops(table, events):
    """Adds each event's self time and one call to its operator's row."""
    for event in events:
        row = table.setdefault(event.name, [0, 0.0, 0.0])
        row[0] += 1
        row[1] += float(event.self_cpu_time_total or 0.0)
        row[2] += _device_us(event)


def ops_list(table, cuda):
    """Every operator of the kept steps, largest first (by device time on CUDA): totals over those steps."""
    ops = [{"name": name, "calls": calls, "selfCpuMs": cpu / 1000.0, "selfCudaMs": device / 1000.0 if cuda else None}
           for name, (calls, cpu, device) in table.items()]
    key = (lambda op: (op["selfCudaMs"] or 0.0, op["selfCpuMs"])) if cuda else (lambda op: op["selfCpuMs"])
    ops.sort(key=key, reverse=True)
    return ops


class PhasePlacer(object):
    """Which phase an instant (perf_counter seconds) fell in, from the window's phase intervals."""

    def __init__(self, intervals):
        self.by_kind = {}
        for kind, start, end in intervals:
            self.by_kind.setdefault(kind, []).append((start, end))
        for spans in self.by_kind.values():
            spans.sort()
        self.starts = {kind: [s for s, _ in spans] for kind, spans in self.by_kind.items()}

    def phase_at(self, when):
        # Innermost first: a DataLoader wait inside the script's batch code is data loading.
        for kind in ("data", "backward", "optimizer", "forward", "input"):
            starts = self.starts.get(kind)
            if not starts:
                continue
            at = bisect.bisect_right(starts, when) - 1
            if at >= 0 and self.by_kind[kind][at][1] >= when:
                return kind
        return "other"


def op_counts(events, marker_start_us, marker_perf, placer):
    """How many host-side operators each phase of one step ran: {kind: count} over KINDS and other."""
    counts = dict((kind, 0) for kind in KINDS + ("other",))
    for event in events:
        if str(getattr(event, "device_type", "")).endswith("CUDA"):
            continue  # a kernel: device time, recorded without host cost
        when = marker_perf + (float(event.time_range.start) - marker_start_us) / 1e6
        counts[placer.phase_at(when)] += 1
    return counts


def read_trace(path):
    with open(path, "r") as f:
        trace = json.load(f)
    # Chrome's trace format has two forms: {"traceEvents": [...]} (Kineto) and a bare array (the legacy profiler).
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    return trace, events


def trace_markers(events):
    """{step: (ts, dur, pid)} of the step markers in the trace (its own clock, microseconds)."""
    found = {}
    for event in events:
        name = str(event.get("name", ""))
        if name.startswith(STEP_MARKER) and "ts" in event:
            try:
                found[int(name[len(STEP_MARKER):])] = (float(event["ts"]), float(event.get("dur", 0.0)), event.get("pid", 0))
            except ValueError:
                pass
    return found


def device_facts(events, spans):
    """Over the kept steps' spans (trace µs): GPU busy time (kernels, copies, sets merged), kernels, device-to-host copies
    and device waits (CUDA runtime calls in which the host waits)."""
    starts = sorted(spans)
    def inside(ts):
        at = bisect.bisect_right(starts, (ts, float("inf"))) - 1
        return at >= 0 and ts <= starts[at][1]
    busy_spans = []
    kernels = dtoh = waits = 0
    for event in events:
        if "ts" not in event:
            continue
        ts = float(event["ts"])
        if not inside(ts):
            continue
        category = str(event.get("cat", "")).lower()
        name = str(event.get("name", ""))
        if category in _DEVICE_CATEGORIES and "dur" in event:
            busy_spans.append((ts, ts + float(event["dur"])))
            if category == "kernel":
                kernels += 1
            if "dtoh" in name.lower().replace(" ", ""):
                dtoh += 1
        elif category in ("cuda_runtime", "cuda_driver", "runtime") and name in DEVICE_WAITS:
            waits += 1
    busy_spans.sort()
    busy_us = 0.0
    end = None
    for start, stop in busy_spans:
        if end is None or start > end:
            busy_us += stop - start
            end = stop
        elif stop > end:
            busy_us += stop - end
            end = stop
    durations = [stop - start for start, stop in busy_spans]
    return {
        "kernels": kernels,
        "busyMs": busy_us / 1000.0,
        "meanKernelUs": (sum(durations) / len(durations)) if durations else None,
        "memcpyDtoH": dtoh,
        "deviceWaits": waits,
    }


def add_markers(trace, events, markers, steps, intervals, anchors):
    """Step and phase slices on two named tracks of the trace (Perfetto and chrome://tracing show them as rows).

    `markers`: the trace's own step markers; `anchors`: {step: perf_counter seconds at its marker}; phase intervals are
    placed by their step's anchor.
    """
    if not markers:
        return False
    pid = next(iter(markers.values()))[2]
    added = [
        {"ph": "M", "name": "thread_name", "pid": pid, "tid": STEPS_TRACK_TID, "args": {"name": "Tuning Bench: steps (numbered by step boundaries)"}},
        {"ph": "M", "name": "thread_name", "pid": pid, "tid": PHASES_TRACK_TID, "args": {"name": "Tuning Bench: phases"}},
    ]
    for step in steps:
        marker = markers.get(step["step"])
        if marker is None:
            continue
        args = {"stepMs": round(step["stepMs"], 3), "kept": step["kept"]}
        if step.get("leftOut"):
            args["leftOut"] = step["leftOut"]
        added.append({"ph": "X", "name": "step %d%s" % (step["step"], "" if step["kept"] else " (left out)"), "cat": "tuning_bench",
                      "pid": pid, "tid": STEPS_TRACK_TID, "ts": marker[0], "dur": marker[1], "args": args})
    ordered = sorted(anchors.items())
    anchor_perfs = [perf for _, perf in ordered]
    for kind, start, end in intervals:
        at = bisect.bisect_right(anchor_perfs, start) - 1
        if at < 0:
            continue
        step_number = ordered[at][0]
        marker = markers.get(step_number)
        if marker is None:
            continue
        ts = marker[0] + (start - ordered[at][1]) * 1e6
        added.append({"ph": "X", "name": _PHASE_NAMES.get(kind, kind), "cat": "tuning_bench", "pid": pid, "tid": PHASES_TRACK_TID,
                      "ts": ts, "dur": max(0.0, (end - start) * 1e6), "args": {"step": step_number}})
    events.extend(added)
    return True


_PHASE_NAMES = {"data": "data loading", "input": "input (script's batch code)", "forward": "forward", "backward": "backward", "optimizer": "optimizer"}


def write_trace(path, trace):
    temporary = "%s.%d.tmp" % (path, os.getpid())
    with open(temporary, "w") as f:
        json.dump(trace, f)
    os.replace(temporary, path)
