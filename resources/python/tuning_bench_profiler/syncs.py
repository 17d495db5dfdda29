"""Host-device syncs, each attributed to the line of the script that asked for it (CUDA only).

A sync is a sync only when the host waits for a device: a number read out of a CUDA tensor (``.item()``,
``float(t)``, ``int(t)``, ``bool(t)``, ``.tolist()``), a copy of one to the host (``.cpu()``, ``.numpy()``), or an
explicit ``torch.cuda.synchronize()``. The same calls on CPU tensors wait for nothing and are not counted. For the
window only, these Tensor methods are wrapped: a CPU tensor goes straight through; a device tensor's call is counted
at the first frame of the script's own below it. Syncs PyTorch makes inside its operators (``nonzero``, boolean
indexing) are counted from the trace's CUDA runtime calls, without a line of the script.
"""

import sys

from tuning_bench_hooks import frames

# Tensor methods that read a device tensor's values on the host, with how a person writes them.
_READERS = (
    ("item", ".item()"),
    ("tolist", ".tolist()"),
    ("__bool__", "bool(tensor) (an `if` on a tensor)"),
    ("__float__", "float(tensor)"),
    ("__int__", "int(tensor)"),
    ("__index__", "a tensor used as an index"),
    ("cpu", ".cpu()"),
    ("numpy", ".numpy()"),
)
# Sites listed in the summary, by calls: the few that make most of the waits.
TOP_SITES = 10


class SyncSites(object):
    def __init__(self, torch):
        self.torch = torch
        self.originals = []
        self.counts = {}  # (site, what) -> calls over the window
        self.step_counts = {}  # the same, this step only

    def install(self):
        tensor = self.torch.Tensor
        for name, what in _READERS:
            original = getattr(tensor, name, None)
            if original is None:
                continue
            # Inherited from the C base class, or the class's own: put back as it was (a deletion, or the original).
            self.originals.append((tensor, name, original, name in vars(tensor)))
            setattr(tensor, name, self._wrap(original, what))
        synchronize = getattr(self.torch.cuda, "synchronize", None)
        if synchronize is not None:
            self.originals.append((self.torch.cuda, "synchronize", synchronize, True))
            self.torch.cuda.synchronize = self._wrap_synchronize(synchronize)

    def remove(self):
        for owner, name, original, own in reversed(self.originals):
            if own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)
        self.originals = []

    def _count(self, what):
        site = frames.site_of(sys._getframe(2)) or "inside a library"
        key = (site, what)
        self.counts[key] = self.counts.get(key, 0) + 1
        self.step_counts[key] = self.step_counts.get(key, 0) + 1

    def _wrap(self, original, what):
        sites = self

        def reader(tensor, *args, **kwargs):
            if tensor.device.type not in ("cpu", "meta"):
                sites._count(what)
            return original(tensor, *args, **kwargs)

        reader.__wrapped__ = original
        reader.__name__ = getattr(original, "__name__", "reader")
        reader.__doc__ = getattr(original, "__doc__", None)
        return reader

    def _wrap_synchronize(self, original):
        sites = self

        def synchronize(*args, **kwargs):
            sites._count("torch.cuda.synchronize()")
            return original(*args, **kwargs)

        synchronize.__wrapped__ = original
        return synchronize

    def take_step(self):
        counts = self.step_counts
        self.step_counts = {}
        return counts


def top_sites(counts, steps):
    """[{site, what, callsPerStep}] by calls, from summed per-step counts."""
    if steps <= 0:
        return []
    ranked = sorted(counts.items(), key=lambda item: item[1], reverse=True)[:TOP_SITES]
    return [{"site": site, "what": what, "callsPerStep": calls / float(steps)} for (site, what), calls in ranked]
