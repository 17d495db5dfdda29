"""Which profiled steps are steady: evaluations, checkpoints and outliers are left out of the profile, and said so.

A step is left out when it holds work the others do not:
- an evaluation: forward passes without gradients (``torch.no_grad()``, ``inference_mode``) beyond what the
  window's typical step has, by more than EXTRA_WORK_SHARE of the typical step (a teacher network every step is
  typical; ``estimate_loss()`` every few steps is not);
- a checkpoint: time in ``torch.save`` beyond the typical step's, by the same margin;
- or, with no such cause seen, a time more than OUTLIER_FACTOR times the window's median step and OUTLIER_MIN_MS
  above it.
At most half the steps are left out: a window with more such steps has no steady state to find, and keeps them all.
"""

# Work beyond the typical step's worth a mention: 10 % of a step (below it, the step's share of time barely moves).
EXTRA_WORK_SHARE = 0.1
# An unexplained step twice the median is no steady step (the run summary's own rule is subtler, over many more steps).
OUTLIER_FACTOR = 2.0
# ...unless it is only a preemption: Linux lets another task hold a busy CPU for up to its scheduling latency (6 ms by
# default, sched_latency_ns), so a sub-millisecond step made 6 ms longer is still a steady step.
OUTLIER_MIN_MS = 6.0


def _median(values):
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return 0.0
    return ordered[n // 2] if n % 2 else 0.5 * (ordered[n // 2 - 1] + ordered[n // 2])


def left_out(steps):
    """For each step (dicts with stepMs, noGradForwardMs, saveMs), why it is left out or None; and whether more than
    half would have been (then none is)."""
    if len(steps) < 3:
        return [None] * len(steps), False
    typical = _median([s["stepMs"] for s in steps])
    typical_eval = _median([s["noGradForwardMs"] for s in steps])
    typical_save = _median([s["saveMs"] for s in steps])
    margin = EXTRA_WORK_SHARE * typical
    reasons = []
    for s in steps:
        if s["noGradForwardMs"] - typical_eval > margin:
            reasons.append("an evaluation: %.1f ms of forward passes without gradients (%.1f ms in the window's typical step)" % (s["noGradForwardMs"], typical_eval))
        elif s["saveMs"] - typical_save > margin:
            reasons.append("a checkpoint: %.1f ms in torch.save" % s["saveMs"])
        elif s["stepMs"] > OUTLIER_FACTOR * typical and s["stepMs"] - typical > OUTLIER_MIN_MS:
            reasons.append("an outlier: %.1f ms, %.1f times the window's median step (%.1f ms), with no evaluation or checkpoint seen" % (
                s["stepMs"], s["stepMs"] / typical, typical))
        else:
            reasons.append(None)
    if sum(1 for r in reasons if r) * 2 > len(steps):
        return [None] * len(steps), True
    return reasons, False
