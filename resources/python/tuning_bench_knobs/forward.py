"""The knobs on the script's top-level model calls: channels-last, autocast, compile (each an *around* of tuning_bench_hooks.module_calls).

A model's choice is made at its first call and kept for it: its device and dtype (autocast), whether its inputs are
4-D (channels-last), its compiled form (compile). The script's own choices stand: a forward it already runs under
autocast, a model it compiled itself.
"""

import time
import warnings
import weakref

DTYPES = {"bf16": "bfloat16", "fp16": "float16"}
# Errors a retry without the knob would only repeat: the script's own (a batch finder catches these on purpose).
NOT_THE_KNOBS = ("out of memory",)


class ForwardKnobs(object):
    def __init__(self, torch, knobs, recorder, scaling):
        self.torch = torch
        self.knobs = knobs
        self.recorder = recorder
        self.scaling = scaling
        self.channels = weakref.WeakKeyDictionary()  # model -> True (converted) / False (left alone)
        self.compiled = weakref.WeakKeyDictionary()  # model -> its compiled module, or None (left alone)
        self.autocast = weakref.WeakKeyDictionary()  # model -> ("on", device_type, dtype) or ("off", None, None)
        self.script_compiles = False

    def install(self, calls):
        if "channelsLast" in self.knobs:
            calls.add(self.channels_last)
        if "autocast" in self.knobs:
            calls.add(self.autocast_around)
        if "compile" in self.knobs:
            if not hasattr(self.torch, "compile"):
                self.recorder.record("compile", "skipped", reason="torch %s has no torch.compile (it came with 2.0)" % self.torch.__version__)
            else:
                self._watch_script_compile()
                calls.add(self.compile_around)

    # ---- channels-last ------------------------------------------------------------------------

    def channels_last(self, module, proceed, args, kwargs, caller):
        torch = self.torch
        state = self.channels.get(module)
        if state is None:
            state = self.channels[module] = self._convert(module, args, caller)
        if state:
            args = tuple(a.contiguous(memory_format=torch.channels_last) if _is_4d(torch, a) else a for a in args)
        return proceed(args, kwargs)

    def _convert(self, module, args, caller):
        if not _has_parameters(module):
            self.recorder.record("channelsLast", "skipped", reason=_NOT_A_MODEL % (_name(module), "left as it is"), frame=caller)
            return False
        if not any(_is_4d(self.torch, a) for a in args):
            self.recorder.record("channelsLast", "skipped", reason="%s is called without a 4-D input (channels-last is for images: N, C, H, W)" % _name(module), frame=caller)
            return False
        try:
            module.to(memory_format=self.torch.channels_last)
        except Exception as error:
            self.recorder.record("channelsLast", "failed", reason="%s.to(memory_format=torch.channels_last): %s: %s" % (_name(module), type(error).__name__, error), frame=caller)
            return False
        self.recorder.record("channelsLast", "applied", what="%s and its 4-D inputs in torch.channels_last" % _name(module), frame=caller)
        return True

    # ---- autocast -----------------------------------------------------------------------------

    def autocast_around(self, module, proceed, args, kwargs, caller):
        state = self.autocast.get(module)
        if state is None:
            state = self.autocast[module] = self._autocast_choice(module, caller)
        if state[0] != "on":
            return proceed(args, kwargs)
        _, device_type, dtype = state
        torch = self.torch
        if _script_autocast(torch, device_type):
            self.recorder.record("autocast", "skipped", reason="the script runs this call under its own autocast: left alone", frame=caller)
            return proceed(args, kwargs)
        try:
            with torch.autocast(device_type, dtype=dtype):
                output = proceed(args, kwargs)
        except Exception as error:
            if any(words in str(error) for words in NOT_THE_KNOBS):
                raise
            self.autocast[module] = ("off", None, None)
            self.recorder.record("autocast", "failed", reason="%s raised under autocast (%s: %s); it runs without autocast from now on" % (
                _name(module), type(error).__name__, error), frame=caller)
            return proceed(args, kwargs)
        inside = _first_dtype(torch, output)
        self.recorder.record("autocast", "applied", frame=caller,
                             what="%s's forward under torch.autocast(%r, dtype=torch.%s); its output is %s inside, returned as float32" % (
                                 _name(module), device_type, DTYPES[self.knobs["autocast"]], str(inside).replace("torch.", "") if inside else "no tensor"),
                             device=device_type, outputDtype=str(inside).replace("torch.", "") if inside else None)
        # As Accelerate does: a loss the script computes outside the forward (mse_loss against a float32 target) would
        # refuse a bfloat16 output.
        return _to_float32(torch, output)

    def _autocast_choice(self, module, caller):
        torch = self.torch
        dtype = getattr(torch, DTYPES[self.knobs["autocast"]])
        tensor = _first_tensor(module)
        if tensor is None:
            self.recorder.record("autocast", "skipped", reason="%s has no parameters or buffers to tell its device" % _name(module), frame=caller)
            return ("off", None, None)
        if tensor.dtype != torch.float32:
            self.recorder.record("autocast", "skipped", reason="%s's parameters are %s already: autocast is for float32 models" % (
                _name(module), str(tensor.dtype).replace("torch.", "")), frame=caller)
            return ("off", None, None)
        device_type = tensor.device.type
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                probe = torch.autocast(device_type, dtype=dtype)
            if getattr(probe, "_enabled", True) is False:
                said = " ".join(str(w.message) for w in caught).replace("\n", " ").strip()
                self.recorder.record("autocast", "skipped", reason="torch %s does not autocast to %s on %s%s" % (
                    torch.__version__, DTYPES[self.knobs["autocast"]], device_type, (" (%s)" % said) if said else ""), frame=caller)
                return ("off", None, None)
        except Exception as error:
            self.recorder.record("autocast", "skipped", reason="torch.autocast(%r, dtype=torch.%s) is refused here (%s: %s)" % (
                device_type, DTYPES[self.knobs["autocast"]], type(error).__name__, error), frame=caller)
            return ("off", None, None)
        if device_type == "cuda" and dtype == torch.float16 and self.scaling is not None:
            self.scaling.activate(caller)
        return ("on", device_type, dtype)

    # ---- compile ------------------------------------------------------------------------------

    def _watch_script_compile(self):
        torch = self.torch
        original = torch.compile
        forward = self

        def compile(*args, **kwargs):
            forward.script_compiles = True
            return original(*args, **kwargs)

        compile.__wrapped__ = original
        compile.__doc__ = original.__doc__
        torch.compile = compile
        self.compile_function = original

    def compile_around(self, module, proceed, args, kwargs, caller):
        compiled = self.compiled.get(module, False)
        if compiled is None:
            return proceed(args, kwargs)
        if compiled is not False:
            return compiled(*args, **kwargs)
        if self.script_compiles or type(module).__name__ == "OptimizedModule":
            self.compiled[module] = None
            self.recorder.record("compile", "skipped", reason="the script compiles its model itself: left alone", frame=caller)
            return proceed(args, kwargs)
        # A transform called before the model (torchvision's Normalize in a Dataset) is a module too: compiling it
        # would measure the transform, and leave the model uncompiled.
        if not _has_parameters(module):
            self.compiled[module] = None
            self.recorder.record("compile", "skipped", reason=_NOT_A_MODEL % (_name(module), "left uncompiled"), frame=caller)
            return proceed(args, kwargs)
        started_wall = time.time()
        started = time.perf_counter()
        try:
            compiled = self.compile_function(module)
            output = compiled(*args, **kwargs)
        except Exception as error:
            if any(words in str(error) for words in NOT_THE_KNOBS):
                raise
            self.compiled[module] = None
            self.recorder.record("compile", "failed", reason="torch.compile(%s) failed on its first call (%s: %s); it runs uncompiled" % (
                _name(module), type(error).__name__, error), frame=caller)
            return proceed(args, kwargs)
        seconds = time.perf_counter() - started
        self.compiled[module] = compiled
        # The first call compiles: the steps before it ended are warm-up, never throughput.
        self.recorder.record("compile", "applied", what="torch.compile(%s) on its first call, which took %.1f s (compiling: warm-up)" % (_name(module), seconds),
                             frame=caller, warmupFrom=started_wall, warmupUntil=time.time())
        return output


def _name(module):
    return type(module).__name__


_NOT_A_MODEL = "%s has no parameters (a transform or a function, not a model): %s"


def _has_parameters(module):
    for _ in module.parameters():
        return True
    return False


def _is_4d(torch, value):
    return isinstance(value, torch.Tensor) and value.dim() == 4


def _first_tensor(module):
    for tensor in module.parameters():
        return tensor
    for tensor in module.buffers():
        if tensor.is_floating_point():
            return tensor
    return None


def _script_autocast(torch, device_type):
    # torch 2.4 on asks per device; its older per-device functions warn that they are deprecated (an error under -W error).
    try:
        return bool(torch.is_autocast_enabled(device_type))
    except TypeError:
        pass
    if device_type == "cuda":
        return torch.is_autocast_enabled()
    if device_type == "cpu":
        check = getattr(torch, "is_autocast_cpu_enabled", None)
        return bool(check and check())
    return False


def _first_dtype(torch, value):
    if isinstance(value, torch.Tensor):
        return value.dtype
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        for item in value:
            found = _first_dtype(torch, item)
            if found is not None:
                return found
    return None


def _to_float32(torch, value):
    if isinstance(value, torch.Tensor):
        return value.float() if value.dtype in (torch.float16, torch.bfloat16) else value
    if isinstance(value, tuple):
        items = [_to_float32(torch, item) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, list):
        return [_to_float32(torch, item) for item in value]
    if isinstance(value, dict):
        converted = [(key, _to_float32(torch, item)) for key, item in value.items()]
        try:
            return type(value)(converted)
        except Exception:
            # A mapping type that cannot be made from pairs (Hugging Face's ModelOutput takes keywords).
            for key, item in converted:
                value[key] = item
            return value
    return value
