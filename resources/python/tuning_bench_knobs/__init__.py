"""Tuning Bench's knobs: the standard speed-ups applied to an unmodified PyTorch script, each said where it applied.

``sitecustomize.py`` (one folder up) calls ``install()`` when Tuning Bench sets ``TUNING_BENCH_KNOBS`` to a JSON object::

    {"knobs": {"workers": 4, "autocast": "bf16", "tf32": true}, "out": "/path/to/knobs.jsonl"}

Nothing is imported up front: the knobs wait for the script's ``import torch`` (tuning_bench_hooks.torch_import), then

- ``threads``, ``tf32``, ``cudnnBenchmark``, ``matmulPrecision`` are set at once (switches.py; the last three on CUDA only);
- ``workers``, ``pinMemory``, ``persistentWorkers``, ``prefetch`` fill in the DataLoaders the script makes without
  workers (loader.py);
- ``channelsLast``, ``autocast`` (``bf16`` or ``fp16``; fp16 on CUDA with loss scaling: scaling.py) and ``compile``
  (torch 2.0 and newer) act on the script's top-level model calls (forward.py, through tuning_bench_hooks.module_calls).

Each outcome (applied, skipped with why, failed with what raised, unused) is a JSON line in ``out``, with the file and
line of the script's call it applied at (record.py). A knob never stops the script: whatever fails is a line there and
one line on stderr, and the script goes on as it would without that knob.
"""

import atexit
import json
import os
import sys

ENV_VAR = "TUNING_BENCH_KNOBS"
KNOWN = ("workers", "pinMemory", "persistentWorkers", "prefetch", "autocast", "tf32", "cudnnBenchmark", "matmulPrecision",
         "compile", "channelsLast", "threads")
FORWARD_KNOBS = ("channelsLast", "autocast", "compile")

_active = None


def active():
    """The knobs of this process, or None."""
    return _active


def install(raw=None):
    """Reads ``TUNING_BENCH_KNOBS`` and waits for torch; never raises."""
    global _active
    raw = os.environ.get(ENV_VAR) if raw is None else raw
    if not raw or _active is not None:
        return None
    from tuning_bench_hooks.torch_import import when_imported

    from .record import Recorder, say

    try:
        config = json.loads(raw)
        if not isinstance(config, dict) or not config.get("out") or not isinstance(config.get("knobs"), dict):
            raise ValueError("expected a JSON object with knobs and out, got %r" % raw)
        knobs = Knobs(config["knobs"], Recorder(str(config["out"])))
    except Exception as error:
        say("%s is not usable (%s); running without knobs" % (ENV_VAR, error))
        return None
    _active = knobs
    atexit.register(knobs.at_exit)
    knobs.watcher = when_imported(knobs.on_torch_imported)
    return knobs


class Knobs(object):
    def __init__(self, knobs, recorder):
        self.recorder = recorder
        self.knobs = {}
        for name, value in knobs.items():
            if name in KNOWN:
                self.knobs[name] = value
            else:
                recorder.record(name, "skipped", reason="no such knob here (known: %s)" % ", ".join(KNOWN))
        if self.knobs.get("autocast") not in (None, "bf16", "fp16"):
            recorder.record("autocast", "skipped", reason="autocast is bf16 or fp16, not %r" % (self.knobs.pop("autocast"),))
        self.torch = None
        self.watcher = None
        self.cuda_available = None

    def cuda(self):
        if self.cuda_available is None:
            try:
                self.cuda_available = bool(self.torch.cuda.is_available())
            except Exception:
                self.cuda_available = False
        return self.cuda_available

    def on_torch_imported(self, torch):
        if self.torch is not None:
            return
        self.torch = torch
        from tuning_bench_hooks import frames
        from tuning_bench_hooks.module_calls import top_level_calls

        from . import forward, loader, scaling, switches

        recorder = self.recorder
        # The script's line that imported torch: where a global switch would go.
        site = frames.call_site(sys._getframe(1))
        cuda = self.cuda()
        recorder.fact(event="torch", torch=getattr(torch, "__version__", None), cuda=cuda, knobs=self.knobs,
                      file=site[0] if site else None, line=site[1] if site else None)
        steps = [
            ("switches", lambda: switches.apply_switches(torch, self.knobs, recorder, site, cuda)),
            ("threads", lambda: "threads" in self.knobs and switches.watch_script_threads(torch, recorder)),
            ("DataLoader", lambda: any(k in self.knobs for k in loader.LOADER_KNOBS) and loader.patch_dataloader(torch, self.knobs, recorder, self.cuda)),
            ("forward", lambda: self._install_forward(torch, forward, scaling, top_level_calls, cuda)),
        ]
        for what, step in steps:
            try:
                step()
            except Exception as error:
                recorder.record(what, "failed", reason="could not hook into torch %s (%s: %s)" % (getattr(torch, "__version__", "?"), type(error).__name__, error), site=site)

    def _install_forward(self, torch, forward, scaling, top_level_calls, cuda):
        if not any(k in self.knobs for k in FORWARD_KNOBS):
            return
        loss_scaling = None
        if self.knobs.get("autocast") == "fp16" and cuda:
            loss_scaling = scaling.LossScaling(torch, self.recorder)
            loss_scaling.install()
        forward.ForwardKnobs(torch, self.knobs, self.recorder, loss_scaling).install(top_level_calls(torch))

    def at_exit(self):
        """Each knob asked for that nothing reached says why, from the script's own process (not a DataLoader worker's)."""
        try:
            import multiprocessing

            if getattr(multiprocessing, "parent_process", lambda: None)() is not None:
                return
            from . import loader

            for name in self.knobs:
                if self.recorder.recorded(name):
                    continue
                if self.torch is None:
                    why = "the command never imported torch in this process (%s)" % sys.executable
                elif name in loader.LOADER_KNOBS:
                    why = "the script made no torch DataLoader"
                elif name in FORWARD_KNOBS:
                    why = "the script called no torch.nn.Module"
                else:
                    why = "never reached"
                self.recorder.record(name, "unused", reason=why)
        except Exception as error:
            from .record import say

            say("could not finish the knobs' record: %s" % error)
