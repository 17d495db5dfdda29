"""The knobs that are one switch of PyTorch's, set when the script imports torch: threads, TF32, cudnn.benchmark, matmul precision.

Their call site is the script's line that imported torch: making one permanent is a line after it.
"""

CUDA_ONLY = {
    "tf32": "TF32 is a mode of NVIDIA GPUs' matrix units (Ampere and newer)",
    "cudnnBenchmark": "cudnn.benchmark picks cuDNN's fastest convolution algorithms on a GPU",
    "matmulPrecision": "torch.set_float32_matmul_precision lets float32 matmuls on a GPU use TF32",
}


def apply_switches(torch, knobs, recorder, site, cuda):
    """Sets each switch asked for, or says why not; never raises."""
    for name in ("threads", "tf32", "cudnnBenchmark", "matmulPrecision"):
        if name not in knobs:
            continue
        value = knobs[name]
        if name in CUDA_ONLY and not cuda:
            recorder.record(name, "skipped", reason="no CUDA device here: %s" % CUDA_ONLY[name], site=site)
            continue
        try:
            what = _apply(torch, name, value, recorder)
        except Exception as error:
            recorder.record(name, "failed", reason="%s: %s" % (type(error).__name__, error), site=site)
            continue
        if what is not None:
            recorder.record(name, "applied", what=what, site=site)


def _apply(torch, name, value, recorder):
    if name == "threads":
        torch.set_num_threads(int(value))
        return "torch.set_num_threads(%d)" % int(value)
    if name == "tf32":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
        return "torch.backends.cuda.matmul.allow_tf32 = True; torch.backends.cudnn.allow_tf32 = True"
    if name == "cudnnBenchmark":
        torch.backends.cudnn.benchmark = True
        return "torch.backends.cudnn.benchmark = True"
    if name == "matmulPrecision":
        setter = getattr(torch, "set_float32_matmul_precision", None)
        if setter is None:
            recorder.record(name, "skipped", reason="torch %s has no set_float32_matmul_precision (it came with 1.12)" % torch.__version__)
            return None
        setter(str(value))
        return 'torch.set_float32_matmul_precision("%s")' % value
    raise ValueError("no switch %s" % name)


def watch_script_threads(torch, recorder):
    """The script's own torch.set_num_threads wins over the knob: said so, with its line, and not counted as the knob's."""
    import sys

    from tuning_bench_hooks import frames

    original = torch.set_num_threads

    def set_num_threads(count):
        caller = sys._getframe(1)
        # Only a call in the script's own code: torch's DataLoader workers set one thread each, which is no choice of the script's.
        if frames.is_script_file(caller.f_code.co_filename):
            recorder.record("threads", "overridden", reason="the script sets torch.set_num_threads(%r) itself, after the knob: its choice stands" % (count,),
                            frame=caller)
        return original(count)

    set_num_threads.__wrapped__ = original
    set_num_threads.__doc__ = original.__doc__
    torch.set_num_threads = set_num_threads
    return original
