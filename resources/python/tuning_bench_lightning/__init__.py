"""Lightning's own numbers into the metrics channel, for scripts whose terminal shows no loss.

PyTorch Lightning's quick-start logs ``self.log("train_loss", loss)`` to its loggers (a CSV file, TensorBoard), not
to the terminal: its progress bar shows the step count and ``v_num`` only, so a run of it had no loss, and a tune of
it no quality gate. When the script imports Lightning (``lightning.pytorch`` or ``pytorch_lightning``), this wraps
its logger connector: after each optimizer step, one line on the channel with the step, the step's wall time, and
the training numbers the progress bar and the loggers got at that step; validation and test numbers go on ``eval``
lines. It reads only what Lightning has already made into Python numbers (the bar's and the loggers' values), so it
adds no wait on the GPU. Rank 0 alone writes. Nothing here can stop the script: a failure is one line on stderr.
"""

import time

from tuning_bench_hooks import module_import

# The module that holds the logger connector, in the two package names Lightning has shipped under.
TARGETS = (
    "lightning.pytorch.trainer.connectors.logger_connector.logger_connector",
    "pytorch_lightning.trainer.connectors.logger_connector.logger_connector",
)
# Lightning's names for the connector class (2.x, then 1.x).
CONNECTOR_CLASSES = ("_LoggerConnector", "LoggerConnector")
EVAL_PREFIXES = ("validation_", "valid_", "val_", "test_")
# The bar's own entries, not measurements.
NOT_METRICS = frozenset(["v_num", "epoch", "step"])
ALIASES = {"acc": "accuracy", "learning_rate": "lr"}

_warn_once = module_import.warn_once("tuning_bench: Lightning's numbers are not reaching Tuning Bench (%s: %s); training goes on\n")


def _key(name):
    """Lightning's metric name as the channel's: `train/loss_step` -> `loss`, `val_acc` and `valid_loss_epoch` -> (eval) `accuracy`, `loss`."""
    key = str(name).strip().lower()
    for separator in ("/", ".", "-", " "):
        key = key.replace(separator, "_")
    for suffix in ("_step", "_epoch"):
        if key.endswith(suffix):
            key = key[: -len(suffix)]
            break
    for prefix in ("train_",) + EVAL_PREFIXES:
        if key.startswith(prefix):
            key = key[len(prefix) :]
            break
    return ALIASES.get(key, key)


def _is_eval(name):
    key = str(name).strip().lower().replace("/", "_").replace(".", "_")
    return key.startswith(EVAL_PREFIXES)


def _is_epoch_value(name):
    return str(name).strip().lower().endswith("epoch")


def _number(value):
    # Only what is already a Python number: a tensor's .item() could wait on the GPU.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _logged_number(value):
    number = _number(value)
    if number is not None:
        return number
    try:
        if value.numel() == 1:
            return _number(value.item())
    except Exception:
        pass
    return None


class StepRecorder:
    """What one trainer process says on the channel: a line per optimizer step, and eval lines."""

    def __init__(self, channel):
        self.channel = channel
        self.last_step_end = None
        self.last_step = None
        self.in_step = False
        self.logged = {}

    def step_began(self):
        self.in_step = True
        self.logged = {}

    def logged_metrics(self, connector, metrics):
        """The values the loggers got in this call."""
        names = list(metrics)
        # Without a logger Lightning makes no numbers of them; with one it has just called .item() on each (the GPU
        # has waited for them already), so doing it again costs a copy of a few bytes, once every log_every_n_steps.
        if not getattr(connector.trainer, "loggers", None) or not getattr(connector.trainer, "is_global_zero", True):
            return
        values = {name: _logged_number(metrics.get(name)) for name in names}
        values = {name: value for name, value in values.items() if value is not None}
        if self.in_step:
            self.logged.update(values)
            return
        # A validation batch's own value (`valid_loss_step`, from on_step=True) is not the pass's: its mean
        # (`valid_loss_epoch`) comes at the end of the pass.
        evaluation = {_key(name): value for name, value in values.items() if _is_eval(name) and not str(name).lower().endswith("_step")}
        if evaluation:
            # After the last step written: Lightning validates before it counts that step as done.
            step = self.last_step if self.last_step is not None else _current_step(connector.trainer)
            self.channel.log_event("eval", step=step, **evaluation)

    def step_ended(self, connector):
        self.in_step = False
        trainer = connector.trainer
        if not getattr(trainer, "is_global_zero", True) or _accumulating(trainer):
            return
        now = time.time()
        values = {}
        bar = getattr(connector, "_progress_bar_metrics", {})
        for source in (bar, self.logged):
            for name, raw in source.items():
                value = _number(raw)
                if value is None or name in NOT_METRICS or _is_eval(name) or _is_epoch_value(name):
                    continue
                values[_key(name)] = value
        if self.last_step_end is not None:
            values["step_time_ms"] = (now - self.last_step_end) * 1000.0
        self.last_step_end = now
        if values:
            self.last_step = _current_step(trainer) + 1
            self.channel.log(step=self.last_step, **values)


def _current_step(trainer):
    """Optimizer steps done before this one ends, as Lightning's loggers count them."""
    loop = getattr(getattr(trainer, "fit_loop", None), "epoch_loop", None)
    done = getattr(loop, "_batches_that_stepped", None)
    return done if isinstance(done, int) else int(getattr(trainer, "global_step", 0))


def _accumulating(trainer):
    try:
        return bool(trainer.fit_loop._should_accumulate()) and bool(trainer.lightning_module.automatic_optimization)
    except Exception:
        return False


def patch(module, recorder):
    """Wraps the connector class of `module`; returns its name, or None where it has none."""
    for class_name in CONNECTOR_CLASSES:
        connector = getattr(module, class_name, None)
        if connector is not None and hasattr(connector, "update_train_step_metrics") and hasattr(connector, "log_metrics"):
            break
    else:
        return None
    if getattr(connector, "_tuning_bench_wrapped", False):
        return class_name
    original_step = connector.update_train_step_metrics
    original_log = connector.log_metrics

    def update_train_step_metrics(self, *args, **kwargs):
        try:
            recorder.step_began()
        except Exception as error:
            _warn_once(error)
        result = original_step(self, *args, **kwargs)
        try:
            recorder.step_ended(self)
        except Exception as error:
            _warn_once(error)
        return result

    def log_metrics(self, metrics, *args, **kwargs):
        result = original_log(self, metrics, *args, **kwargs)
        try:
            if metrics:
                recorder.logged_metrics(self, metrics)
        except Exception as error:
            _warn_once(error)
        return result

    connector.update_train_step_metrics = update_train_step_metrics
    connector.log_metrics = log_metrics
    connector._tuning_bench_wrapped = True
    return class_name


def _new_recorder():
    import tuning_bench

    return StepRecorder(tuning_bench)


def install():
    module_import.when_imported(TARGETS, _new_recorder, patch, _warn_once)
