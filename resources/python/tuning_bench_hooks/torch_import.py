"""Waits for the script to import torch, without importing it first: one import hook, however many features wait."""

import importlib.abc
import importlib.util
import sys


class TorchImportWatcher(importlib.abc.MetaPathFinder):
    """When ``torch`` is imported, lets the real finder load it, then calls each waiting feature; remembers why an import failed."""

    def __init__(self):
        self.callbacks = []
        self.busy = False
        self.failure = None  # why the script's `import torch` failed, in Python's words

    def find_spec(self, name, path=None, target=None):
        if name != "torch" or self.busy:
            return None
        self.busy = True
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.busy = False
        if spec is None:
            self.failure = "ModuleNotFoundError: No module named 'torch'"
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        original_exec = spec.loader.exec_module
        watcher = self

        def exec_module(module):
            try:
                original_exec(module)
            except BaseException as error:
                watcher.failure = "%s: %s" % (type(error).__name__, error)
                raise
            try:
                sys.meta_path.remove(watcher)
            except ValueError:
                pass
            global _watcher
            _watcher = None
            # Each feature in the order it asked; one that fails must not keep the next from its hook.
            for callback in watcher.callbacks:
                try:
                    callback(module)
                except Exception as error:
                    sys.stderr.write("tuning_bench: a hook on import torch failed (%s: %s); the script runs on\n" % (type(error).__name__, error))

        spec.loader.exec_module = exec_module
        return spec


_watcher = None


def when_imported(callback):
    """Calls ``callback(torch)`` once torch is imported (now, if it already is); returns the watcher waiting, or None."""
    global _watcher
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "optim"):
        callback(torch)
        return None
    if _watcher is None:
        _watcher = TorchImportWatcher()
        sys.meta_path.insert(0, _watcher)
    _watcher.callbacks.append(callback)
    return _watcher


def torch_importable():
    """Whether this interpreter finds a torch to import (found, not imported)."""
    try:
        return importlib.util.find_spec("torch") is not None
    except Exception:
        return False
