"""Whose code a Python frame runs: the script's own, or a library's (PyTorch, the standard library, site-packages).

The training loop is the innermost frame of the script that stays the same from one step to the next; a site that
waits for the GPU is the first frame of the script's own below the call.
"""

import os
import sys
import sysconfig

_HERE = os.path.dirname(os.path.abspath(__file__))


def _library_roots():
    roots = {_HERE, os.path.dirname(_HERE)}
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            path = sysconfig.get_paths().get(name)
        except Exception:
            path = None
        if path:
            roots.add(os.path.realpath(path))
    for path in sys.path:
        # site-packages and dist-packages folders, wherever a virtual environment or a distribution puts them.
        if path and os.path.basename(path.rstrip(os.sep)) in ("site-packages", "dist-packages"):
            roots.add(os.path.realpath(path))
    return tuple(sorted(roots))


_ROOTS = None
_CACHE = {}


def is_script_file(filename):
    """True for a file of the script's own (not a library's, not frozen or built in)."""
    global _ROOTS
    known = _CACHE.get(filename)
    if known is not None:
        return known
    if _ROOTS is None:
        _ROOTS = _library_roots()
    if filename.startswith("<") and filename not in ("<string>", "<stdin>"):
        result = False  # <frozen importlib._bootstrap>, <decorator-gen-...>
    elif filename in ("<string>", "<stdin>"):
        result = True  # python -c, a script piped in
    else:
        real = os.path.realpath(filename)
        result = not any(real == root or real.startswith(root + os.sep) for root in _ROOTS)
    _CACHE[filename] = result
    return result


def script_frames(frame):
    """The script's own frames from `frame` outward, innermost first."""
    chain = []
    while frame is not None:
        if is_script_file(frame.f_code.co_filename):
            chain.append(frame)
        frame = frame.f_back
    return chain


def loop_frame(earlier, later):
    """The innermost frame of the script present at two step boundaries: the loop that makes the steps."""
    for frame in later:
        for other in earlier:
            if frame is other:
                return frame
    return None


def site_of(frame):
    """`file:line` of the first frame of the script's own from `frame` outward, or None."""
    while frame is not None:
        if is_script_file(frame.f_code.co_filename):
            return "%s:%d" % (os.path.basename(frame.f_code.co_filename), frame.f_lineno)
        frame = frame.f_back
    return None


def describe(code):
    """`name (file:line)` of a function."""
    return "%s (%s:%d)" % (code.co_name, os.path.basename(code.co_filename), code.co_firstlineno)


def call_site(frame):
    """``(absolute path, line)`` of the first frame of the script's own from `frame` outward, or None."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if is_script_file(filename):
            path = filename if filename.startswith("<") else os.path.abspath(filename)
            return path, frame.f_lineno
        frame = frame.f_back
    return None


def made_by(frame):
    """The package whose code the script called to get here (``transformers`` for a loader its Trainer made), or None.

    The library frame next to the script's own, outward from `frame`; None where the script called torch itself (or
    Tuning Bench's hooks stand between), or no frame is the script's.
    """
    inner = None
    while frame is not None:
        if is_script_file(frame.f_code.co_filename):
            break
        inner = frame
        frame = frame.f_back
    if frame is None or inner is None:
        return None
    package = str(inner.f_globals.get("__name__") or "").split(".")[0]
    if not package or package == "torch" or package.startswith("tuning_bench"):
        return None
    return package
