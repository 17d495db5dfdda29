"""Waits for the script to import torch, without importing it first: an import hook that finds nothing itself."""

import importlib.abc
import importlib.util
import sys


class TorchImportWatcher(importlib.abc.MetaPathFinder):
    """When ``torch`` is imported, lets the real finder load it, then hooks in; remembers why an import failed."""

    def __init__(self, on_import):
        self.on_import = on_import
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
        on_import = self.on_import
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
            on_import(module)

        spec.loader.exec_module = exec_module
        return spec


def torch_importable():
    """Whether this interpreter finds a torch to import (found, not imported)."""
    try:
        return importlib.util.find_spec("torch") is not None
    except Exception:
        return False
