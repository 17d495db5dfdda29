"""Waits for the script to import a library's module, then hands the loaded module on: for features that wrap it.

A finder on ``sys.meta_path`` lets the real finder load the module and calls ``wrap(module, state)`` after the
module's own code has run; ``state`` is made by ``make()`` at the first such module (a recorder and its channel), so
nothing is imported until then (importlib.util alone would cost every Python run about 5 ms at start-up). A failure
goes to ``failed(error)``, never to the script.
"""

import sys


class ModuleImportWatcher(object):
    def __init__(self, names, make, wrap, failed):
        self.names = frozenset(names)
        self.make = make
        self.wrap = wrap
        self.failed = failed
        self.state = None
        self.busy = False

    def loaded(self, module):
        if self.state is None:
            self.state = self.make()
        self.wrap(module, self.state)

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


def when_imported(names, make, wrap, failed):
    """Calls ``wrap(module, state)`` once the script has imported any of `names` (full module names); ``make()`` gives
    ``state``, once, at the first of them."""
    sys.meta_path.insert(0, ModuleImportWatcher(names, make, wrap, failed))


def warn_once(message):
    """A function that writes ``message % (error type, error)`` on stderr the first time it is called, and never again."""
    warned = []

    def warn(error):
        if warned:
            return
        warned.append(True)
        try:
            sys.stderr.write(message % (type(error).__name__, error))
        except Exception:  # stderr may be gone
            pass

    return warn
