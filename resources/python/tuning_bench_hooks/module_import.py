"""Waits for the script to import a library's module, then hands the loaded module on: for features that wrap it.

A finder on ``sys.meta_path`` lets the real finder load the module and calls ``loaded(module)`` after the module's own
code has run. Nothing is imported until then (importlib.util alone would cost every Python run about 5 ms at
start-up); a failure of ``loaded`` goes to ``failed(error)``, never to the script.
"""

import sys


class ModuleImportWatcher(object):
    def __init__(self, names, loaded, failed):
        self.names = frozenset(names)
        self.loaded = loaded
        self.failed = failed
        self.busy = False

    def find_spec(self, name, path=None, target=None):
        if name not in self.names or self.busy:
            return None
        import importlib.util

        self.busy = True
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        original_exec = spec.loader.exec_module
        loaded, failed = self.loaded, self.failed

        def exec_module(module):
            original_exec(module)
            try:
                loaded(module)
            except Exception as error:
                failed(error)

        spec.loader.exec_module = exec_module
        return spec


def when_imported(names, loaded, failed):
    """Calls ``loaded(module)`` once the script has imported any of `names` (full module names)."""
    sys.meta_path.insert(0, ModuleImportWatcher(names, loaded, failed))
