"""A Hugging Face Trainer's loss at every optimizer step into the metrics channel, not only every logging_steps.

``transformers.Trainer`` prints its loss once every ``logging_steps`` (500 by default): a short run (a tune's, which
stops after a few seconds of steps) often ends before the first, so it had no loss and its tune no quality gate. When
the script imports ``transformers.trainer``, this wraps ``Trainer.training_step`` (each micro-batch's loss, as the
Trainer sums it for its own log) and adds one callback to every Trainer made: after each optimizer step, one line on
the channel with the step, its wall time and its loss (the sum of its micro-batches', the quantity whose mean the
Trainer logs); evaluation results go on ``eval`` lines. Reading a loss on a GPU must not make the training wait: its
copy to the host is started without blocking and read once the GPU has done it, a step or two later (the line then
comes that much later; a CPU loss is read at once). Rank 0 alone writes. Nothing here can stop the script: a failure
is one line on stderr.
"""

import time

from tuning_bench_hooks import module_import

TARGET = "transformers.trainer"

_warn_once = module_import.warn_once("tuning_bench: the Trainer's losses are not reaching Tuning Bench (%s: %s); training goes on\n")


def _scalar(value):
    """A finished loss as a float, or None."""
    try:
        return float(value.item()) if hasattr(value, "item") else float(value)
    except Exception:
        return None


class PendingLoss:
    """One step's loss on its way to the host: a tensor copy started without blocking, and whether it has landed."""

    def __init__(self, total):
        self.value = None
        self.copy = None
        self.done_event = None
        kind = getattr(getattr(total, "device", None), "type", "cpu")
        if kind == "cpu":
            self.value = _scalar(total)
        elif kind == "cuda":
            import torch

            self.copy = total.to("cpu", non_blocking=True)
            self.done_event = torch.cuda.Event()
            self.done_event.record()
        # Other devices (mps, xpu): no way here to know when a copy has landed without waiting, so no value; the
        # Trainer's own logged loss still reaches the run through the terminal.

    def ready(self):
        return self.done_event is None or self.done_event.query()

    def read(self):
        if self.done_event is not None:
            self.done_event.synchronize()
            self.value = _scalar(self.copy)
            self.copy = None
            self.done_event = None
        return self.value


class StepRecorder:
    """What one Trainer process says on the channel: a line per optimizer step (in order), and eval lines."""

    def __init__(self, channel):
        # Imported here, once the script has imported the Trainer: not at every Python start-up.
        import collections

        self.channel = channel
        self.step_loss = None
        self.last_step_end = None
        self.pending = collections.deque()
        self.wrote_steps = False

    def micro_batch(self, loss):
        # On the device, without a wait: adding tensors only queues the addition.
        try:
            detached = loss.detach()
        except Exception:
            return
        self.step_loss = detached if self.step_loss is None else self.step_loss + detached

    def step_ended(self, state):
        now = time.time()
        step_time_ms = None if self.last_step_end is None else (now - self.last_step_end) * 1000.0
        self.last_step_end = now
        total, self.step_loss = self.step_loss, None
        if not getattr(state, "is_world_process_zero", True):
            return
        loss = None if total is None else PendingLoss(total)
        self.pending.append((int(state.global_step), step_time_ms, loss))
        self.flush(wait=False)

    def flush(self, wait):
        # In step order: a line waits for the losses before it, so the channel's steps never go back.
        while self.pending:
            step, step_time_ms, loss = self.pending[0]
            if loss is not None and not wait and not loss.ready():
                return
            self.pending.popleft()
            value = None if loss is None else loss.read()
            # Only with a loss: once the channel has a line, the run reads its numbers from the channel alone, and a
            # step's time without its loss would hide the Trainer's logged loss on the terminal.
            if value is None:
                continue
            values = {"loss": value}
            if step_time_ms is not None:
                values["step_time_ms"] = step_time_ms
            self.channel.log(step=step, **values)
            self.wrote_steps = True

    def evaluated(self, state, metrics):
        if not getattr(state, "is_world_process_zero", True) or not metrics:
            return
        self.flush(wait=True)
        # Without step lines the run reads the terminal, where the Trainer prints its evaluation too.
        if not self.wrote_steps:
            return
        values = {}
        for name, raw in metrics.items():
            key = str(name)
            for prefix in ("eval_", "test_"):
                if key.startswith(prefix):
                    key = key[len(prefix) :]
                    break
            else:
                continue
            # Runtimes and rates of the evaluation pass are not measurements of the model.
            if key in ("runtime", "samples_per_second", "steps_per_second", "samples", "epoch") or isinstance(raw, bool):
                continue
            if isinstance(raw, (int, float)):
                values[key] = raw
        if values:
            self.channel.log_event("eval", step=int(state.global_step), **values)


def patch(module, recorder):
    """Wraps `module.Trainer`; returns True where it did."""
    trainer_class = getattr(module, "Trainer", None)
    if trainer_class is None or not hasattr(trainer_class, "training_step") or not hasattr(trainer_class, "add_callback"):
        return False
    if getattr(trainer_class, "_tuning_bench_wrapped", False):
        return True
    from transformers.trainer_callback import TrainerCallback

    class ChannelCallback(TrainerCallback):
        """Told by the Trainer after each optimizer step and each evaluation."""

        def on_step_end(self, args, state, control, **kwargs):
            try:
                recorder.step_ended(state)
            except Exception as error:
                _warn_once(error)

        def on_evaluate(self, args, state, control, metrics=None, **kwargs):
            try:
                recorder.evaluated(state, metrics)
            except Exception as error:
                _warn_once(error)

        def on_train_end(self, args, state, control, **kwargs):
            try:
                recorder.flush(wait=True)
            except Exception as error:
                _warn_once(error)

    original_init = trainer_class.__init__
    original_step = trainer_class.training_step

    def __init__(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        try:
            self.add_callback(ChannelCallback())
        except Exception as error:
            _warn_once(error)

    def training_step(self, *args, **kwargs):
        loss = original_step(self, *args, **kwargs)
        try:
            recorder.micro_batch(loss)
        except Exception as error:
            _warn_once(error)
        return loss

    trainer_class.__init__ = __init__
    trainer_class.training_step = training_step
    trainer_class._tuning_bench_wrapped = True
    return True


def _new_recorder():
    import tuning_bench

    return StepRecorder(tuning_bench)


def install():
    module_import.when_imported((TARGET,), _new_recorder, patch, _warn_once)
