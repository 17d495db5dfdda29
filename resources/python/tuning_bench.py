"""Tuning Bench structured metrics channel (standard library only, Python 3.8+).

Tuning Bench starts each run with the environment variable ``TUNING_BENCH_METRICS`` set to a
file path and tails that file while the run goes on. A training script reports numbers there
with two calls::

    import tuning_bench as tb

    tb.log_event("config", batch_size=16, amp="bf16")          # one-off facts
    for step in range(1, steps + 1):
        ...
        tb.log(step=step, loss=loss.item(), tokens=batch * seq_len, lr=lr, step_time_ms=ms)
    tb.log(step=step, eval_loss=val_loss)

When ``TUNING_BENCH_METRICS`` is unset or empty both calls do nothing, so a script can call them
unconditionally; outside Tuning Bench it behaves exactly as before.

Line format (the contract with the engine; see README.md beside this file)
-------------------------------------------------------------------------
One JSON object per line, UTF-8, ``\\n``-terminated, appended to the file:

``{"t": 1718000000.123, "step": 12, "loss": 2.31, "tokens": 2048, "lr": 0.003}``
``{"t": 1718000000.456, "step": null, "event": "config", "batch_size": 16, "amp": "bf16"}``

- ``t``: wall-clock time of the call, ``time.time()`` (seconds since the epoch, float).
- ``step``: the training step (an integer when the value is integral), or ``null``.
- ``event``: present only on ``log_event`` lines: the name of the fact (``config``, ``done``...).
- every other key is a value given by the caller. Metric lines (``log``) carry numbers. Canonical
  names, so the engine recognises them without configuration: ``loss``, ``eval_loss``, ``lr``,
  ``tokens``, ``samples``, ``step_time_ms``, ``grad_norm``. ``tokens`` and ``samples`` count
  what was processed *in this step* (not cumulative).
- NaN and infinities are written as the strings ``"nan"``, ``"inf"`` and ``"-inf"`` so every
  line stays valid JSON. Tensors and NumPy scalars (anything with ``.item()``) become numbers.
  ``None`` values of keyword arguments are left out (``step`` is always written).
- Keys ``t`` and ``event`` are reserved: a caller's keyword of that name is dropped.

Guarantees
----------
- Each line is written with one ``write`` on a file opened with ``O_APPEND``, so lines from
  several threads, or from processes that share the file (DataLoader workers), never interleave,
  and each line is in the file (not in a Python buffer) when the call returns.
- The file is opened once and reopened when ``TUNING_BENCH_METRICS`` changes or when the path no
  longer names the file that is open (deleted or replaced).
- Thread-safe, and fork-safe (a forked child gets a fresh lock).
- Never raises into the training loop: a broken channel (unwritable path, full disk, odd values)
  prints one warning on stderr and the call returns; later calls keep trying silently.
"""

import json
import math
import os
import sys
import threading
import time

__all__ = ["log", "log_event", "step", "enabled", "metrics_path", "close", "ENV_VAR"]

ENV_VAR = "TUNING_BENCH_METRICS"
_RESERVED = ("t", "event")

_lock = threading.Lock()
_fd = None  # the open file descriptor, or None
_fd_path = None  # the path it was opened for
_fd_ident = None  # (st_dev, st_ino) of the open file
_warned = False


def _reset_after_fork():
    """A forked child must not inherit a lock held by another thread of the parent."""
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def metrics_path():
    """The file that lines go to, or None when the channel is off."""
    path = os.environ.get(ENV_VAR)
    return path if path else None


def enabled():
    """True when ``TUNING_BENCH_METRICS`` names a file (the calls then write)."""
    return metrics_path() is not None


def _warn_once(error):
    global _warned
    if _warned:
        return
    _warned = True
    try:
        sys.stderr.write(
            "tuning_bench: metrics channel %s=%r is not working (%s); training goes on, "
            "further metrics may be lost\n" % (ENV_VAR, os.environ.get(ENV_VAR), error)
        )
        sys.stderr.flush()
    except Exception:  # stderr itself may be gone
        pass


def _close_locked():
    global _fd, _fd_path, _fd_ident
    if _fd is not None:
        try:
            os.close(_fd)
        except OSError:
            pass
    _fd = None
    _fd_path = None
    _fd_ident = None


def close():
    """Close the file (optional: the next call reopens it)."""
    with _lock:
        _close_locked()


def _open_locked(path):
    """The descriptor for ``path``: the open one if it still names the same file, else a new one."""
    global _fd, _fd_path, _fd_ident
    if _fd is not None and _fd_path == path:
        try:
            st = os.stat(path)
            if (st.st_dev, st.st_ino) == _fd_ident:
                return _fd
        except OSError:
            pass  # removed: reopen (creates it again)
    _close_locked()
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o644)
    st = os.fstat(fd)
    _fd, _fd_path, _fd_ident = fd, path, (st.st_dev, st.st_ino)
    return fd


def _number(value):
    """A JSON-safe form of a number: finite floats as floats, NaN/Inf as strings."""
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    return value


def _clean(value):
    """Turn a caller's value into something ``json.dumps(allow_nan=False)`` accepts."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    item = getattr(value, "item", None)  # torch tensors, numpy scalars
    if callable(item):
        try:
            return _clean(item())
        except Exception:
            pass
    try:
        return _number(float(value))  # Decimal, Fraction, other number-likes
    except Exception:
        return str(value)


def _step_value(step):
    step = _clean(step)
    if isinstance(step, float) and step.is_integer():
        return int(step)
    return step


def _write(record):
    path = metrics_path()
    if path is None:
        return
    try:
        data = (json.dumps(record, allow_nan=False, separators=(", ", ": ")) + "\n").encode("utf-8")
        with _lock:
            fd = _open_locked(path)
            while data:
                written = os.write(fd, data)
                data = data[written:]
    except Exception as error:  # never into the training loop
        try:
            with _lock:
                _close_locked()  # the next call starts afresh
        except Exception:
            pass
        _warn_once(error)


def _record(step, event, fields):
    record = {"t": time.time(), "step": _step_value(step)}
    if event is not None:
        record["event"] = str(event)
    for key, value in fields.items():
        if key in _RESERVED or value is None:
            continue
        record[str(key)] = _clean(value)
    return record


def log(step=None, loss=None, tokens=None, samples=None, **more):
    """Append one metric line: ``t``, ``step`` and every given (non-None) value.

    ``tokens`` and ``samples`` are what this step processed. Other canonical keys: ``eval_loss``,
    ``lr``, ``step_time_ms``, ``grad_norm``. Does nothing when ``TUNING_BENCH_METRICS`` is unset;
    never raises.
    """
    if metrics_path() is None:
        return
    try:
        fields = {"loss": loss, "tokens": tokens, "samples": samples}
        fields.update(more)
        _write(_record(step, None, fields))
    except Exception as error:
        _warn_once(error)


def log_event(name, step=None, **fields):
    """Append one fact line: ``{"t": ..., "step": ..., "event": name, **fields}``.

    For things that happen once or rarely: ``log_event("config", batch_size=8)``,
    ``log_event("done", steps=200, seconds=12.5)``. Values may be numbers, strings, booleans,
    lists or dicts. Does nothing when ``TUNING_BENCH_METRICS`` is unset; never raises.
    """
    if metrics_path() is None:
        return
    try:
        _write(_record(step, name, fields))
    except Exception as error:
        _warn_once(error)


def step():
    """Marks the end of one training step, for Tuning Bench's profiler.

    Only needed by scripts whose steps are not ``torch.optim`` optimizer steps (the profiler finds
    those itself). Once called, these calls are the step boundaries of the profiled window. Does
    nothing unless the run is profiled; never raises.
    """
    profiler = sys.modules.get("tuning_bench_profiler")
    if profiler is None:
        return
    try:
        active = profiler.active()
        if active is not None:
            active.marked_step()
    except Exception as error:
        _warn_once(error)
