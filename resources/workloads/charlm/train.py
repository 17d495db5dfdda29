#!/usr/bin/env python3
"""charlm: a small character-level transformer language model, trained for Tuning Bench.

A real PyTorch training loop (embedding, pre-LN transformer blocks with causal self-attention,
MLP, tied output layer, AdamW, DataLoader of random windows) on the shipped corpus
(../../data/tiny-corpus.txt), with the knobs that tuning plans talk about: batch size, sequence
length, DataLoader workers and pinned memory, mixed precision, torch.compile, threads, device.
Works with PyTorch 1.13 and 2.x, on CPU or CUDA.

Each step is reported twice: as a JSON line through the Tuning Bench metrics channel
(resources/python/tuning_bench.py, when TUNING_BENCH_METRICS is set) and as human output every
--log-every steps:

    step 120: loss 2.314, 41250 tok/s, 24.8 ms/step
    eval: step 200 loss 1.987

See README.md beside this file for flags, metrics and typical numbers.
"""

import argparse
import math
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "data", "tiny-corpus.txt"))
HELPER_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "python"))

EXIT_NO_TORCH = 3
EVAL_BATCHES = 8
VAL_FRACTION = 0.1

ON_WORDS = ("on", "1", "true", "yes")
OFF_WORDS = ("off", "0", "false", "no", "none")


# --------------------------------------------------------------------------------------------
# command line (parsed before torch is imported, so --help and bad flags work without it)

def switch(value):
    """on/off flag value: on|off|1|0|true|false|yes|no (a bare flag means on)."""
    word = str(value).strip().lower()
    if word in ON_WORDS:
        return True
    if word in OFF_WORDS:
        return False
    raise argparse.ArgumentTypeError("expected on or off (or 1/0, true/false, yes/no), got %r" % value)


def amp_mode(value):
    word = str(value).strip().lower()
    if word in ("bf16", "bfloat16"):
        return "bf16"
    if word in ("fp16", "float16", "half"):
        return "fp16"
    if word in OFF_WORDS or word in ("fp32", "float32"):
        return "off"
    if word in ON_WORDS or word == "auto":
        return "auto"
    raise argparse.ArgumentTypeError("expected bf16, fp16 or off (or on = best for the device), got %r" % value)


def threads_value(value):
    word = str(value).strip().lower()
    if word in ("auto", "default", "0", ""):
        return None
    try:
        n = int(word)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a positive number or auto, got %r" % value)
    if n < 1:
        raise argparse.ArgumentTypeError("expected a positive number or auto, got %r" % value)
    return n


def positive(value):
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a positive integer, got %r" % value)
    if n < 1:
        raise argparse.ArgumentTypeError("expected a positive integer, got %r" % value)
    return n


def non_negative(value):
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError("expected an integer >= 0, got %r" % value)
    if n < 0:
        raise argparse.ArgumentTypeError("expected an integer >= 0, got %r" % value)
    return n


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        prog="train.py",
        description="charlm: character-level transformer LM for Tuning Bench (PyTorch 1.13+, CPU or CUDA).",
        epilog="Metrics: JSON lines to $TUNING_BENCH_METRICS when set. Details: README.md beside this file.",
    )
    p.add_argument("--batch-size", type=positive, default=16, help="sequences per step (default 16)")
    p.add_argument("--seq-len", type=positive, default=128, help="characters per sequence (default 128)")
    p.add_argument("--workers", type=non_negative, default=0, help="DataLoader num_workers (default 0: load in the main process)")
    p.add_argument("--pin-memory", type=switch, nargs="?", const=True, default=False, metavar="on|off",
                   help="DataLoader pin_memory + non_blocking copies (CUDA only; bare flag = on; default off)")
    p.add_argument("--amp", type=amp_mode, default="off", metavar="bf16|fp16|off",
                   help="mixed precision autocast (default off). fp16 needs CUDA (on CPU it falls back to bf16); "
                        "on = bf16 where supported, else fp16")
    p.add_argument("--compile", type=switch, nargs="?", const=True, default=False, metavar="on|off",
                   help="torch.compile the model (PyTorch >= 2; otherwise a note and no compile; bare flag = on)")
    p.add_argument("--steps", type=positive, default=200, help="training steps (default 200)")
    p.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto", help="auto = cuda if available (default auto)")
    p.add_argument("--threads", type=threads_value, default=None, metavar="N|auto",
                   help="torch.set_num_threads(N) (default auto: leave PyTorch's default)")
    p.add_argument("--seed", type=int, default=0, help="seed of model init and data windows (default 0)")
    p.add_argument("--lr", type=float, default=3e-3, help="peak AdamW learning rate (default 3e-3)")
    p.add_argument("--eval-every", type=non_negative, default=100,
                   help="evaluate every N steps, and always after the last step (default 100; 0 = only at the end)")
    p.add_argument("--log-every", type=positive, default=10, help="print a step line every N steps (default 10)")
    p.add_argument("--d-model", type=positive, default=128, help="model width (default 128)")
    p.add_argument("--layers", type=positive, default=2, help="transformer blocks (default 2)")
    p.add_argument("--heads", type=positive, default=4, help="attention heads (default 4)")
    p.add_argument("--data", default=DEFAULT_DATA, help="training text, UTF-8 (default: the shipped tiny-corpus.txt)")
    args = p.parse_args(argv)
    if args.d_model % args.heads != 0:
        p.error("--d-model (%d) must be a multiple of --heads (%d)" % (args.d_model, args.heads))
    return args


def import_torch():
    """PyTorch, or a one-line explanation and exit status 3."""
    where = "%s (Python %s)" % (sys.executable or "this Python", platform.python_version())
    try:
        import torch  # noqa: F401
        return torch
    except ImportError as error:
        # The detail first: the last line is the one the app shows as the reason the run failed.
        if not (isinstance(error, ModuleNotFoundError) and error.name == "torch"):
            sys.stderr.write("charlm: (the import failed with: %s)\n" % error)
        sys.stderr.write(
            "charlm: PyTorch is not installed for %s. Install it (e.g. apt-get install python3-torch, "
            "or pip install torch) or choose another Python with the workload's \"python\" variable.\n" % where)
    except Exception as error:  # a broken install: missing shared library, ABI mismatch...
        sys.stderr.write("charlm: PyTorch failed to load for %s: %s: %s. Reinstall it or choose another Python "
                         "with the workload's \"python\" variable.\n" % (where, type(error).__name__, error))
    sys.stderr.flush()
    sys.exit(EXIT_NO_TORCH)


def import_metrics():
    """The tuning_bench metrics module: from PYTHONPATH, else from resources/python beside us."""
    try:
        import tuning_bench
        return tuning_bench
    except ImportError:
        pass
    if os.path.isdir(HELPER_DIR) and HELPER_DIR not in sys.path:
        sys.path.insert(0, HELPER_DIR)
        try:
            import tuning_bench
            return tuning_bench
        except ImportError:
            pass
    if os.environ.get("TUNING_BENCH_METRICS"):
        sys.stderr.write("charlm: tuning_bench.py not found (looked in %s); no structured metrics\n" % HELPER_DIR)

    class NoMetrics:
        @staticmethod
        def log(*_args, **_kwargs):
            pass

        @staticmethod
        def log_event(*_args, **_kwargs):
            pass

    return NoMetrics


def say(line):
    print("charlm: " + line, flush=True)


def on_off(flag):
    return "on" if flag else "off"


# --------------------------------------------------------------------------------------------
# everything below needs torch: defined inside main() once it is imported

def build(torch):
    nn = torch.nn
    F = torch.nn.functional
    has_sdpa = hasattr(F, "scaled_dot_product_attention")

    class CausalSelfAttention(nn.Module):
        def __init__(self, d_model, heads, max_len):
            super().__init__()
            self.heads = heads
            self.qkv = nn.Linear(d_model, 3 * d_model)
            self.proj = nn.Linear(d_model, d_model)
            if not has_sdpa:
                mask = torch.triu(torch.ones(max_len, max_len, dtype=torch.bool), diagonal=1)
                self.register_buffer("mask", mask, persistent=False)

        def forward(self, x):
            b, t, d = x.shape
            h = self.heads
            q, k, v = self.qkv(x).split(d, dim=2)
            q = q.view(b, t, h, d // h).transpose(1, 2)
            k = k.view(b, t, h, d // h).transpose(1, 2)
            v = v.view(b, t, h, d // h).transpose(1, 2)
            if has_sdpa:
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:  # PyTorch < 2.0: the same computation with plain ops
                att = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(d // h))
                att = att.masked_fill(self.mask[:t, :t], float("-inf"))
                att = torch.softmax(att.float(), dim=-1).to(v.dtype)
                y = torch.matmul(att, v)
            y = y.transpose(1, 2).contiguous().view(b, t, d)
            return self.proj(y)

    class Block(nn.Module):
        def __init__(self, d_model, heads, max_len):
            super().__init__()
            self.ln1 = nn.LayerNorm(d_model)
            self.attn = CausalSelfAttention(d_model, heads, max_len)
            self.ln2 = nn.LayerNorm(d_model)
            self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class CharLM(nn.Module):
        def __init__(self, vocab, d_model, layers, heads, max_len):
            super().__init__()
            self.tok = nn.Embedding(vocab, d_model)
            self.pos = nn.Embedding(max_len, d_model)
            self.blocks = nn.ModuleList([Block(d_model, heads, max_len) for _ in range(layers)])
            self.ln_f = nn.LayerNorm(d_model)
            self.apply(self._init)
            for name, param in self.named_parameters():  # GPT-2 style: residual projections scaled down
                if name.endswith("attn.proj.weight") or name.endswith("mlp.2.weight"):
                    nn.init.normal_(param, mean=0.0, std=0.02 / math.sqrt(2 * layers))

        @staticmethod
        def _init(module):
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
                nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets):
            t = idx.shape[1]
            pos = torch.arange(t, device=idx.device)
            x = self.tok(idx) + self.pos(pos)
            for block in self.blocks:
                x = block(x)
            logits = F.linear(self.ln_f(x), self.tok.weight)  # output layer tied to the embedding
            return F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), targets.reshape(-1))

    class RandomWindows(torch.utils.data.Dataset):
        """Item i: a window of seq_len+1 characters at a position hashed from (seed, i).

        Deterministic whatever the number of workers; the work per item is a slice and a copy,
        like a real tokenised-text loader.
        """

        def __init__(self, data, seq_len, length, seed):
            self.data = data
            self.seq_len = seq_len
            self.length = length
            self.seed = seed
            self.span = len(data) - seq_len - 1

        def __len__(self):
            return self.length

        def __getitem__(self, i):
            z = (self.seed * 0x9E3779B97F4A7C15 + (i + 1) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
            z = ((z ^ (z >> 31)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF  # splitmix64 finaliser
            start = (z ^ (z >> 29)) % self.span
            chunk = self.data[start:start + self.seq_len + 1].long()
            return chunk[:-1], chunk[1:]

    return CharLM, RandomWindows, has_sdpa


def load_text(path):
    with open(path, "r", encoding="utf-8") as f:
        text = f.read()
    return text


def lr_at(step, steps, peak):
    """Linear warm-up over the first min(20, steps/5) steps, then cosine decay to peak/10."""
    warmup = max(1, min(20, steps // 5))
    if step <= warmup:
        return peak * step / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * progress)))


def main(argv=None):
    args = parse_args(argv)
    torch = import_torch()
    tb = import_metrics()
    CharLM, RandomWindows, has_sdpa = build(torch)

    say("batch_size=%d seq_len=%d steps=%d workers=%d pin_memory=%s amp=%s compile=%s device=%s threads=%s "
        "seed=%d lr=%g eval_every=%d d_model=%d layers=%d heads=%d" % (
            args.batch_size, args.seq_len, args.steps, args.workers, on_off(args.pin_memory), args.amp,
            on_off(args.compile), args.device, args.threads or "auto", args.seed, args.lr, args.eval_every,
            args.d_model, args.layers, args.heads))

    # ---- device, threads, precision
    if args.device == "auto":
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    elif args.device == "cuda" and not torch.cuda.is_available():
        built = getattr(torch.version, "cuda", None)
        sys.stderr.write("charlm: --device cuda, but CUDA is not available (PyTorch %s %s)\n" % (
            torch.__version__, "built with CUDA %s, no usable GPU" % built if built else "built without CUDA"))
        return 2
    else:
        device = torch.device(args.device)
    cuda = device.type == "cuda"
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    amp = args.amp
    scaler = None
    if amp == "auto":
        amp = "bf16" if (not cuda or torch.cuda.is_bf16_supported()) else "fp16"
    if amp == "fp16" and not cuda:
        say("--amp fp16 needs CUDA; on CPU it falls back to bf16 autocast (use --amp off for fp32)")
        amp = "bf16"
    if amp == "bf16" and cuda and not torch.cuda.is_bf16_supported():
        say("--amp bf16: this GPU has no bfloat16 support; falling back to fp16 autocast with a GradScaler")
        amp = "fp16"
    amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(amp)
    if amp == "fp16":  # fp16 gradients underflow without loss scaling
        if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):  # PyTorch >= 2.3
            scaler = torch.amp.GradScaler("cuda")
        else:
            scaler = torch.cuda.amp.GradScaler()
    pin = bool(args.pin_memory and cuda)

    where = "cpu"
    if cuda:
        index = device.index if device.index is not None else torch.cuda.current_device()
        props = torch.cuda.get_device_properties(index)
        where = "cuda:%d (%s, %.1f GiB, compute capability %d.%d)" % (
            index, props.name, props.total_memory / 2 ** 30, props.major, props.minor)
    say("torch %s, Python %s (%s), device %s, threads %d (interop %d)" % (
        torch.__version__, platform.python_version(), sys.executable, where, torch.get_num_threads(),
        torch.get_num_interop_threads()))
    if args.pin_memory and not cuda:
        say("--pin-memory has no effect on CPU (nothing to copy to a GPU); not pinning")

    # ---- data
    text = load_text(args.data)
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([stoi[c] for c in text], dtype=torch.int16 if len(chars) < 32768 else torch.int32)
    split = int(len(ids) * (1 - VAL_FRACTION))
    train_ids, val_ids = ids[:split], ids[split:]
    if len(val_ids) < args.seq_len + 2 or len(train_ids) < args.seq_len + 2:
        sys.stderr.write("charlm: %s is too short (%d characters) for --seq-len %d\n" % (args.data, len(ids), args.seq_len))
        return 2
    train_set = RandomWindows(train_ids, args.seq_len, args.steps * args.batch_size, args.seed)
    val_set = RandomWindows(val_ids, args.seq_len, EVAL_BATCHES * args.batch_size, args.seed + 1)
    loader = torch.utils.data.DataLoader(
        train_set, batch_size=args.batch_size, shuffle=False, drop_last=True, num_workers=args.workers,
        pin_memory=pin, persistent_workers=False)

    # ---- model, optimiser
    model = CharLM(len(chars), args.d_model, args.layers, args.heads, args.seq_len).to(device)
    params = sum(p.numel() for p in model.parameters())
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
        lr=args.lr, betas=(0.9, 0.99))
    say("data %s: %d characters, vocab %d (train %d, val %d); model %.2fM parameters, attention %s" % (
        args.data, len(ids), len(chars), len(train_ids), len(val_ids), params / 1e6,
        "F.scaled_dot_product_attention" if has_sdpa else "manual (matmul + softmax)"))
    say("amp %s%s" % (
        amp, "" if amp == "off" else " (autocast %s on %s%s)" % (
            "bfloat16" if amp == "bf16" else "float16", device.type, ", GradScaler" if scaler else "")))

    step_model = model
    if args.compile:
        if hasattr(torch, "compile"):
            say("torch.compile: compiling on the first step(s)")
            step_model = torch.compile(model)
        else:
            say("--compile: torch.compile needs PyTorch 2.0 or newer (this is %s); continuing without compiling"
                % torch.__version__)

    def autocast():
        if amp_dtype is None:
            return torch.autocast(device_type=device.type, enabled=False)
        return torch.autocast(device_type=device.type, dtype=amp_dtype)

    def sync():
        if cuda:
            torch.cuda.synchronize(device)

    def evaluate():
        """Mean loss over EVAL_BATCHES fixed validation batches (the uncompiled model: no recompiles)."""
        model.eval()
        total = 0.0
        with torch.no_grad(), autocast():
            for i in range(EVAL_BATCHES):
                items = [val_set[i * args.batch_size + j] for j in range(args.batch_size)]
                x = torch.stack([a for a, _ in items]).to(device)
                y = torch.stack([b for _, b in items]).to(device)
                total += model(x, y).item()
        model.train()
        return total / EVAL_BATCHES

    tokens_per_step = args.batch_size * args.seq_len
    tb.log_event("config", batch_size=args.batch_size, seq_len=args.seq_len, steps=args.steps, workers=args.workers,
                 pin_memory=pin, amp=amp, amp_requested=args.amp, compile=bool(args.compile and hasattr(torch, "compile")),
                 device=str(device), device_name=where, threads=torch.get_num_threads(), torch=torch.__version__,
                 python=platform.python_version(), params=params, vocab=len(chars), lr=args.lr, seed=args.seed,
                 d_model=args.d_model, layers=args.layers, heads=args.heads, tokens_per_step=tokens_per_step)

    # ---- train
    model.train()
    step = 0
    step_times = []
    interval_time = 0.0
    interval_steps = 0
    final_eval = None
    started = time.perf_counter()
    eval_seconds = 0.0
    try:
        sync()
        t_prev = time.perf_counter()
        for x, y in loader:
            step += 1
            lr = lr_at(step, args.steps, args.lr)
            for group in optimizer.param_groups:
                group["lr"] = lr
            x = x.to(device, non_blocking=pin)
            y = y.to(device, non_blocking=pin)
            with autocast():
                loss = step_model(x, y)
            optimizer.zero_grad(set_to_none=True)
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.unscale_(optimizer)
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
            loss_value = loss.item()
            grad_value = grad_norm.item()
            sync()
            t_now = time.perf_counter()
            dt = t_now - t_prev
            t_prev = t_now
            step_times.append(dt)
            interval_time += dt
            interval_steps += 1
            tb.log(step=step, loss=loss_value, tokens=tokens_per_step, samples=args.batch_size, lr=lr,
                   step_time_ms=dt * 1000.0, grad_norm=grad_value)
            if step % args.log_every == 0 or step == args.steps:
                print("step %d: loss %.3f, %d tok/s, %.1f ms/step" % (
                    step, loss_value, round(tokens_per_step * interval_steps / interval_time),
                    interval_time * 1000.0 / interval_steps), flush=True)
                interval_time = 0.0
                interval_steps = 0
            if (args.eval_every and step % args.eval_every == 0) or step == args.steps:
                t_eval = time.perf_counter()
                final_eval = evaluate()
                print("eval: step %d loss %.3f" % (step, final_eval), flush=True)
                tb.log_event("eval", step=step, loss=final_eval)  # the engine reads it as eval_loss
                sync()
                t_prev = time.perf_counter()  # evaluation time is not a training step's time
                eval_seconds += t_prev - t_eval
    except KeyboardInterrupt:
        print("\ninterrupted at step %d" % step, flush=True)
        return 130

    # ---- summary
    total = time.perf_counter() - started
    train_seconds = sum(step_times)
    warm = max(1, min(10, len(step_times) // 10))
    steady = sorted(step_times[warm:] or step_times)
    median = steady[len(steady) // 2] if len(steady) % 2 else 0.5 * (steady[len(steady) // 2 - 1] + steady[len(steady) // 2])
    print("done: %d steps in %.1f s (training %.1f s, eval %.1f s); steady %.2f steps/s, %d tok/s, %.1f ms/step "
          "(median of steps %d-%d)" % (
              step, total, train_seconds, eval_seconds, 1.0 / median, round(tokens_per_step / median),
              median * 1000.0, warm + 1, step), flush=True)
    tb.log_event("done", step=step, seconds=total, train_seconds=train_seconds, eval_seconds=eval_seconds,
                 median_step_time_ms=median * 1000.0, steady_tokens_per_sec=tokens_per_step / median,
                 final_eval_loss=final_eval)
    return 0


if __name__ == "__main__":
    sys.exit(main())
