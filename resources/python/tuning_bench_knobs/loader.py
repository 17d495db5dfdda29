"""The DataLoader knobs: workers, pinned memory, persistent workers, prefetch, for loaders the script makes without workers.

``DataLoader.__init__`` is wrapped: the arguments the script passed are read (a value it wrote itself is its choice and
is left alone, said so), the knobs fill the rest, and a loader torch refuses with them is made as the script wrote it.
"""

import sys
import weakref

from tuning_bench_hooks import frames

LOADER_KNOBS = ("workers", "pinMemory", "persistentWorkers", "prefetch")


def decide(arguments, knobs, is_iterable, cuda, who="the script"):
    """(changes to the arguments, outcomes) for one DataLoader; `arguments` holds only what its maker passed.

    `who` made the call: the script, or the library it called (a Trainer passes its own settings, as explicitly).
    """
    changes = {}
    outcomes = []
    user_workers = arguments.get("num_workers", 0) or 0
    if "workers" in knobs:
        count = int(knobs["workers"])
        if user_workers:
            outcomes.append(("workers", "skipped", None, "%s sets num_workers=%r itself: left alone" % (who, user_workers)))
        elif is_iterable:
            outcomes.append(("workers", "skipped", None, "an IterableDataset: each worker would yield all of it unless the dataset "
                                                         "splits itself by get_worker_info(), so it is left alone"))
        else:
            changes["num_workers"] = count
            outcomes.append(("workers", "applied", "num_workers=%d (was 0)" % count, None))
    workers = changes.get("num_workers", user_workers)
    if "pinMemory" in knobs:
        if "pin_memory" in arguments:
            outcomes.append(("pinMemory", "skipped", None, "%s sets pin_memory=%r itself: left alone" % (who, arguments["pin_memory"])))
        elif not cuda:
            outcomes.append(("pinMemory", "skipped", None, "no CUDA device here: pinned memory only speeds copies to a GPU"))
        else:
            changes["pin_memory"] = True
            outcomes.append(("pinMemory", "applied", "pin_memory=True", None))
    for knob, argument, value in (("persistentWorkers", "persistent_workers", True), ("prefetch", "prefetch_factor", knobs.get("prefetch"))):
        if knob not in knobs:
            continue
        if arguments.get(argument) is not None:
            outcomes.append((knob, "skipped", None, "%s sets %s=%r itself: left alone" % (who, argument, arguments[argument])))
        elif not workers:
            outcomes.append((knob, "skipped", None, "the DataLoader has no workers (num_workers=0): %s needs some" % argument))
        else:
            changes[argument] = int(value) if knob == "prefetch" else value
            outcomes.append((knob, "applied", "%s=%r" % (argument, changes[argument]), None))
    return changes, outcomes


def patch_dataloader(torch, knobs, recorder, cuda):
    """Wraps ``DataLoader.__init__`` (and its iterator's creation, which falls back to no workers if workers fail to start)."""
    import inspect

    loader_class = torch.utils.data.DataLoader
    original_init = loader_class.__init__
    signature = inspect.signature(original_init)
    iterable_class = torch.utils.data.IterableDataset
    changed = weakref.WeakKeyDictionary()  # loader -> (site, knobs applied)

    def __init__(loader, *args, **kwargs):
        caller = sys._getframe(1)
        try:
            via = frames.made_by(caller)
            bound = signature.bind(loader, *args, **kwargs)
            changes, outcomes = decide(bound.arguments, knobs, isinstance(bound.arguments.get("dataset"), iterable_class), cuda(), via or "the script")
        except Exception:
            return original_init(loader, *args, **kwargs)  # arguments torch will refuse in the script's own words
        site = frames.call_site(caller)
        if not changes:
            _record(recorder, outcomes, site, via)
            return original_init(loader, *args, **kwargs)
        bound.arguments.update(changes)
        try:
            original_init(*bound.args, **bound.kwargs)
        except Exception as error:
            for knob, status, what, reason in outcomes:
                if status == "applied":
                    recorder.record(knob, "failed", reason="DataLoader refused %s (%s: %s); made as the script wrote it" % (what, type(error).__name__, error), site=site, via=via)
                else:
                    recorder.record(knob, status, what, reason, site=site, via=via)
            return original_init(loader, *args, **kwargs)
        _record(recorder, outcomes, site, via)
        changed[loader] = (site, [knob for knob, status, _, _ in outcomes if status == "applied"])
        return None

    __init__.__wrapped__ = original_init
    loader_class.__init__ = __init__

    original_iterator = getattr(loader_class, "_get_iterator", None)
    if original_iterator is None:
        return

    def _get_iterator(loader):
        try:
            return original_iterator(loader)
        except Exception as error:
            entry = changed.pop(loader, None)
            if entry is None or not loader.num_workers:
                raise
            site, applied = entry
            for knob in applied:
                recorder.record(knob, "failed", reason="the workers did not start (%s: %s); the loader goes on without workers" % (type(error).__name__, error), site=site)
            loader.num_workers = 0
            return original_iterator(loader)

    _get_iterator.__wrapped__ = original_iterator
    loader_class._get_iterator = _get_iterator


def _record(recorder, outcomes, site, via):
    for knob, status, what, reason in outcomes:
        recorder.record(knob, status, what, reason, site=site, via=via)
