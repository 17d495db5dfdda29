"""What each knob did and where, appended to the results file the engine reads: one JSON line per distinct outcome."""

import json
import os
import sys
import threading
import time

from tuning_bench_hooks import frames

# Distinct outcomes one process writes at most: a loader made each epoch at one line is one outcome, so only a
# script that makes models or loaders at hundreds of different lines reaches it; the engine reads a bounded file.
MAX_RECORDS = 200


def say(message):
    try:
        sys.stderr.write("tuning_bench knobs: %s\n" % message)
        sys.stderr.flush()
    except Exception:  # stderr may be gone
        pass


class Recorder(object):
    """Appends outcomes to ``path`` (JSON Lines, O_APPEND: processes sharing the file never interleave lines)."""

    def __init__(self, path):
        self.path = path
        self.seen = set()
        self.knobs_seen = set()
        self.lock = threading.Lock()
        self.fd = None
        self.broken = False
        if hasattr(os, "register_at_fork"):
            # A forked DataLoader worker gets a fresh lock (the parent's may have been held at the fork).
            os.register_at_fork(after_in_child=self._after_fork)

    def _after_fork(self):
        self.lock = threading.Lock()

    def record(self, knob, status, what=None, reason=None, frame=None, site=None, **extra):
        """One outcome: ``applied``, ``skipped`` (with why), ``overridden`` (the script set it itself later), ``failed`` (what raised), ``unused``."""
        if site is None and frame is not None:
            site = frames.call_site(frame)
            # The library that made the call at that line (a Trainer's own loop): the change to make is then in its settings.
            extra.setdefault("via", frames.made_by(frame))
        key = (knob, status, site, reason if status != "applied" else what)
        with self.lock:
            if key in self.seen or len(self.seen) >= MAX_RECORDS:
                return
            self.seen.add(key)
            self.knobs_seen.add(knob)
        line = {"t": time.time(), "pid": os.getpid(), "knob": knob, "status": status, "what": what, "reason": reason,
                "file": site[0] if site else None, "line": site[1] if site else None}
        line.update(extra)
        self.write(line)
        if status == "failed":
            say("%s could not be applied (%s); the run goes on without it" % (knob, reason))

    def fact(self, **fields):
        """A line about the process (its torch, whether CUDA is there), not about one knob."""
        fields.setdefault("t", time.time())
        fields["pid"] = os.getpid()
        self.write(fields)

    def recorded(self, knob):
        return knob in self.knobs_seen

    def write(self, line):
        if self.broken:
            return
        try:
            data = (json.dumps(line, default=str, allow_nan=False) + "\n").encode("utf-8")
            with self.lock:
                if self.fd is None:
                    self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                os.write(self.fd, data)
        except Exception as error:
            self.broken = True
            say("the results file %r cannot be written (%s): what the knobs did is not recorded" % (self.path, error))
