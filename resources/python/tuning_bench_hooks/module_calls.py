"""Top-level ``nn.Module`` calls (the script calling its model, not a model calling its layers): one patch of ``Module.__call__``.

A feature adds an *around* function, ``around(module, proceed, args, kwargs, caller)``, that returns the call's result,
usually ``proceed(args, kwargs)`` inside whatever it sets up (an autocast region, inputs in another memory format), or
another callable's result (a compiled module). Arounds run only at depth 0 of each thread's module calls, so a layer
inside a model sees nothing of them; a call made while torch.compile traces is passed straight on, so no compiled graph
holds our code.
"""

import sys
import threading

_calls = None


def top_level_calls(torch):
    """The one patch of ``torch.nn.Module.__call__`` in this process, made on first use."""
    global _calls
    if _calls is None:
        _calls = TopLevelCalls(torch)
    return _calls


class TopLevelCalls(object):
    def __init__(self, torch):
        self.torch = torch
        self.arounds = []
        self.local = threading.local()
        self.compiling = None  # resolved at the first call (torch.compile's check, or "never" before torch 2)
        module_class = torch.nn.Module
        original = module_class.__call__
        self.original = original
        calls = self
        local = self.local

        def __call__(module, *args, **kwargs):
            compiling = calls.compiling
            if compiling is None:
                compiling = calls.compiling = _compiling_check(calls.torch)
            if compiling():
                return original(module, *args, **kwargs)
            depth = getattr(local, "depth", 0)
            local.depth = depth + 1
            try:
                if depth == 0 and calls.arounds:
                    return calls._around(module, args, kwargs, sys._getframe(1))
                return original(module, *args, **kwargs)
            finally:
                local.depth = depth

        __call__.__wrapped__ = original
        module_class.__call__ = __call__

    def add(self, around):
        self.arounds.append(around)

    def _around(self, module, args, kwargs, caller):
        chain = self.arounds
        original = self.original

        def proceed_from(index):
            def proceed(args_, kwargs_):
                if index == len(chain):
                    return original(module, *args_, **kwargs_)
                return chain[index](module, proceed_from(index + 1), args_, kwargs_, caller)
            return proceed

        return proceed_from(0)(args, kwargs)


def _compiling_check(torch):
    """``torch.compiler.is_compiling`` or its older names; before torch 2 nothing compiles."""
    compiler = getattr(torch, "compiler", None)
    check = getattr(compiler, "is_compiling", None)
    if check is not None:
        return check
    if not hasattr(torch, "compile"):
        return lambda: False
    try:
        import torch._dynamo as dynamo
        check = getattr(dynamo, "is_compiling", None)
        if check is None:
            from torch._dynamo import external_utils
            check = external_utils.is_compiling
        return check
    except Exception:
        return lambda: False
