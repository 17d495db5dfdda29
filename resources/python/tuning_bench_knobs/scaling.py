"""Loss scaling for autocast=fp16 on CUDA, without the script's help: a GradScaler around its backward, clipping and optimizer steps.

float16 gradients underflow without it. Once a forward runs under fp16 autocast, a scalar loss's ``backward()`` is
``scaler.scale(loss).backward()``, ``clip_grad_norm_`` unscales first, and each optimizer's ``step()`` is
``scaler.step(optimizer)``; ``scaler.update()`` runs before the next scaled backward, so several optimizers and
gradient accumulation each see one update per iteration. A script with its own GradScaler is left alone.
"""

import sys
import types
import weakref


class LossScaling(object):
    def __init__(self, torch, recorder):
        self.torch = torch
        self.recorder = recorder
        self.scaler = None
        self.active = False
        self.script_scaler = False
        self.ours = False
        self.inside = False
        self.pending_update = False
        self.optimizers = weakref.WeakSet()
        self.site = None

    def install(self):
        torch = self.torch
        # torch.amp.GradScaler (torch 2.3 on) is what a modern script makes, and what torch.cuda.amp.GradScaler now
        # derives from: watched there, a script's scaler of either kind is seen.
        self._watch_script_scalers(_device_scaler_class(torch) or torch.cuda.amp.GradScaler)
        self._wrap_optimizers(torch.optim.Optimizer)
        self._wrap_backward(torch.Tensor)
        for owner in (torch.nn.utils, getattr(torch.nn.utils, "clip_grad", None)):
            if owner is not None and hasattr(owner, "clip_grad_norm_"):
                self._wrap_clip(owner)

    def activate(self, caller):
        """The first fp16 autocast forward on CUDA: scaling starts (unless the script scales its losses itself)."""
        if self.active or self.scaler is False:
            return
        if self.script_scaler:
            self.scaler = False
            self.recorder.record("autocast", "skipped", reason="the script makes its own GradScaler: its loss scaling is left alone", frame=caller)
            return
        device_scaler = _device_scaler_class(self.torch)
        made = 'torch.amp.GradScaler("cuda")' if device_scaler else "torch.cuda.amp.GradScaler()"
        try:
            self.ours = True
            # The older class warns that it is deprecated on torch 2.4 on: the newer one where there is one.
            self.scaler = device_scaler("cuda") if device_scaler else self.torch.cuda.amp.GradScaler()
        except Exception as error:
            self.scaler = False
            self.recorder.record("autocast", "failed", reason="no GradScaler for fp16 (%s: %s): float16 gradients may underflow" % (type(error).__name__, error), frame=caller)
            return
        finally:
            self.ours = False
        self.active = True
        self.recorder.record("autocast", "applied", what="loss.backward() as scaler.scale(loss).backward(), optimizer.step() as scaler.step(optimizer) (scaler = %s)" % made, frame=caller)

    def _give_up(self, why, frame):
        self.active = False
        self.scaler = False
        self.recorder.record("autocast", "failed", reason="loss scaling stopped (%s); steps go on unscaled" % why, frame=frame)

    def _watch_script_scalers(self, scaler_class):
        original = scaler_class.__init__
        scaling = self

        def __init__(scaler, *args, **kwargs):
            if not scaling.ours:
                scaling.script_scaler = True
            return original(scaler, *args, **kwargs)

        __init__.__wrapped__ = original
        scaler_class.__init__ = __init__

    def _wrap_backward(self, tensor_class):
        original = tensor_class.backward
        scaling = self

        def backward(tensor, gradient=None, *args, **kwargs):
            if not scaling.active or gradient is not None or tensor.numel() != 1 or not tensor.is_cuda or scaling.inside:
                return original(tensor, gradient, *args, **kwargs)
            try:
                if scaling.pending_update:
                    scaling.pending_update = False
                    scaling.scaler.update()
                scaled = scaling.scaler.scale(tensor)
            except Exception as error:
                scaling._give_up("%s: %s" % (type(error).__name__, error), sys._getframe(1))
                return original(tensor, gradient, *args, **kwargs)
            return original(scaled, None, *args, **kwargs)

        backward.__wrapped__ = original
        backward.__doc__ = original.__doc__
        tensor_class.backward = backward

    def _wrap_optimizers(self, optimizer_class):
        original_init = optimizer_class.__init__
        scaling = self

        def __init__(optimizer, *args, **kwargs):
            original_init(optimizer, *args, **kwargs)
            try:
                scaling._wrap_step(optimizer)
            except Exception as error:
                scaling.recorder.record("autocast", "failed", reason="cannot scale %s's steps (%s: %s)" % (type(optimizer).__name__, type(error).__name__, error), frame=sys._getframe(1))

        __init__.__wrapped__ = original_init
        optimizer_class.__init__ = __init__

    def _wrap_step(self, optimizer):
        # An instance attribute, a bound method with the original's name (as the profiler does: LR schedulers and
        # GradScaler read step.__func__ and its signature).
        step = optimizer.step
        scaling = self
        self.optimizers.add(optimizer)

        def scaled_step(_optimizer, *args, **kwargs):
            if not scaling.active or scaling.inside or "closure" in kwargs or args:
                return step(*args, **kwargs)
            scaling.inside = True
            try:
                result = scaling.scaler.step(_optimizer)
                scaling.pending_update = True
                return result
            except Exception as error:
                # No scaled backward reached this optimizer (its loss was not a scalar on the GPU, say): a plain step.
                scaling._give_up("%s: %s" % (type(error).__name__, error), sys._getframe(1))
                return step(*args, **kwargs)
            finally:
                scaling.inside = False

        scaled_step.__wrapped__ = getattr(step, "__func__", step)
        scaled_step.__name__ = getattr(step, "__name__", "step")
        scaled_step.__doc__ = getattr(step, "__doc__", None)
        optimizer.step = types.MethodType(scaled_step, optimizer)

    def _wrap_clip(self, owner):
        original = owner.clip_grad_norm_
        scaling = self

        def clip_grad_norm_(*args, **kwargs):
            if scaling.active:
                for optimizer in list(scaling.optimizers):
                    try:
                        scaling.scaler.unscale_(optimizer)
                    except RuntimeError:
                        pass  # unscaled already this iteration, or it holds no scaled gradients
            return original(*args, **kwargs)

        clip_grad_norm_.__wrapped__ = original
        clip_grad_norm_.__doc__ = original.__doc__
        owner.clip_grad_norm_ = clip_grad_norm_


def _device_scaler_class(torch):
    """torch.amp.GradScaler, which takes the device (torch 2.3 on); None on an older torch."""
    amp = getattr(torch, "amp", None)
    scaler = getattr(amp, "GradScaler", None)
    return scaler if isinstance(scaler, type) else None
