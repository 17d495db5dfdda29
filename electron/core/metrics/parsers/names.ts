// Canonical metric names: one spelling per quantity for every parser, the unit in the name where it has one.

/**
 * The names every parser maps its framework's spelling to. A record's `kind` says which phase a
 * value belongs to: `loss` in a `train` record is the training loss at that step, in a `summary`
 * record the run's average training loss; `eval_*` names are always validation values. Values may
 * be NaN or ±Infinity when the log prints them so.
 */
export const CANONICAL_METRICS = {
  loss: 'training loss (unitless)',
  eval_loss: 'validation / evaluation loss (unitless)',
  lr: 'learning rate',
  grad_norm: 'global gradient norm before clipping',
  tokens_per_sec: 'throughput in tokens per second (fairseq "words" are target tokens)',
  samples_per_sec: 'throughput in samples (images, sequences) per second',
  steps_per_sec: 'optimizer steps or loop iterations per second (tqdm it/s; s/it inverted)',
  step_time_ms: 'wall time of one step, milliseconds',
  data_time_ms: 'time one step waited for data, milliseconds',
  mfu_percent: 'model FLOPs utilisation, percent (0-100)',
  epoch: 'epoch as the log counts it (Keras from 1, PyTorch scripts from 0; HF fractional)',
  accuracy: 'training accuracy as a fraction (0-1)',
  eval_accuracy: 'validation accuracy as a fraction (0-1)',
  tflops: 'achieved TFLOP/s per device',
  memory_gib: 'device memory in use (peak where the framework reports peak), GiB',
  total_steps: 'length of the training loop (the N of step n/N)',
} as const;

export type CanonicalMetric = keyof typeof CANONICAL_METRICS;

/**
 * Names some parsers add beyond the canonical ones. Other keys a log prints pass through as
 * snake_case (`memory/max_mem_active(gib)` becomes `memory_max_mem_active_gib`).
 */
export const AUXILIARY_METRICS = {
  batch: 'position within the current epoch or evaluation loop (the i of [i/N])',
  batches: 'length of that loop (the N of [i/N])',
  total_epochs: 'epochs the run will train (the M of `Epoch N/M`)',
  samples_seen: 'samples done in the current epoch, where a log counts samples rather than batches (pytorch/examples MNIST)',
  samples_total: 'samples in an epoch, beside samples_seen',
  progress_percent: "the epoch's progress as the log prints it, percent",
  elapsed_s: 'time since the progress bar started, seconds',
  remaining_s: "the progress bar's estimate of time left, seconds",
  eta_s: "the framework's estimate of time left in the epoch or run, seconds",
  epoch_time_s: 'wall time of a whole epoch, seconds',
  memory_percent: 'device memory in use as a percent of its capacity',
  acc1_percent: 'top-1 accuracy, percent (0-100)',
  acc5_percent: 'top-5 accuracy, percent (0-100)',
  ppl: 'perplexity',
  eval_steps_per_sec: 'evaluation batches per second (kept apart from training throughput)',
  eval_samples_per_sec: 'evaluation samples per second',
  train_runtime_s: 'whole training run time reported at its end, seconds',
  eval_runtime_s: 'one evaluation pass, seconds',
  loss_scale: 'mixed-precision loss scale',
  warmup_hint: '1 where the script itself marks the step as warm-up (nanoGPT prints mfu -100 % until its estimate starts)',
} as const;

/** A running average of a value gets this prefix (`avg_loss`, `avg_step_time_ms`). */
export const AVERAGE_PREFIX = 'avg_';
/** A validation counterpart of a training value gets this prefix (`eval_loss`, `eval_acc1_percent`). */
export const EVAL_PREFIX = 'eval_';

/**
 * Spellings (already snake_case, unit suffixes already applied) of the same quantities in the
 * frameworks and scripts this project has met. Anything not here keeps its snake_case name.
 */
const ALIASES: Readonly<Record<string, string>> = {
  learning_rate: 'lr',
  lr_rate: 'lr',
  grad_norm: 'grad_norm',
  gradient_norm: 'grad_norm',
  gnorm: 'grad_norm',
  total_norm: 'grad_norm',
  train_loss: 'loss',
  lm_loss: 'loss',
  val_loss: 'eval_loss',
  valid_loss: 'eval_loss',
  validation_loss: 'eval_loss',
  // A test pass is evaluation too (pytorch/examples' VAE: `====> Test set loss: 339.0139`).
  test_loss: 'eval_loss',
  test_set_loss: 'eval_loss',
  acc: 'accuracy',
  train_acc: 'accuracy',
  train_accuracy: 'accuracy',
  val_acc: 'eval_accuracy',
  val_accuracy: 'eval_accuracy',
  valid_acc: 'eval_accuracy',
  valid_accuracy: 'eval_accuracy',
  validation_accuracy: 'eval_accuracy',
  test_acc: 'eval_accuracy',
  test_accuracy: 'eval_accuracy',
  eval_acc: 'eval_accuracy',
  tok_per_sec: 'tokens_per_sec',
  toks_per_sec: 'tokens_per_sec',
  tokens_per_second: 'tokens_per_sec',
  tokens_per_s: 'tokens_per_sec',
  tps: 'tokens_per_sec',
  wps: 'tokens_per_sec',
  words_per_sec: 'tokens_per_sec',
  it_per_sec: 'steps_per_sec',
  its_per_sec: 'steps_per_sec',
  iters_per_sec: 'steps_per_sec',
  steps_per_second: 'steps_per_sec',
  ups: 'steps_per_sec',
  samples_per_second: 'samples_per_sec',
  sample_per_sec: 'samples_per_sec',
  img_per_sec: 'samples_per_sec',
  imgs_per_sec: 'samples_per_sec',
  images_per_sec: 'samples_per_sec',
  examples_per_sec: 'samples_per_sec',
  seq_per_sec: 'samples_per_sec',
  eval_samples_per_second: 'eval_samples_per_sec',
  eval_steps_per_second: 'eval_steps_per_sec',
  time_ms: 'step_time_ms',
  dt_ms: 'step_time_ms',
  step_time_ms: 'step_time_ms',
  iter_time_ms: 'step_time_ms',
  batch_time_ms: 'step_time_ms',
  time_per_step_ms: 'step_time_ms',
  ms_per_step: 'step_time_ms',
  ms_per_iter: 'step_time_ms',
  // Time keys of hand-written loops (`Time/step: 0.050s`, `t=45ms`, `took 48ms`, `step_ms=45`); the unit is already in the name.
  time_step_ms: 'step_time_ms',
  time_iter_ms: 'step_time_ms',
  time_batch_ms: 'step_time_ms',
  time_per_iter_ms: 'step_time_ms',
  time_per_it_ms: 'step_time_ms',
  time_per_batch_ms: 'step_time_ms',
  step_duration_ms: 'step_time_ms',
  iter_duration_ms: 'step_time_ms',
  batch_duration_ms: 'step_time_ms',
  iteration_time_ms: 'step_time_ms',
  train_step_time_ms: 'step_time_ms',
  t_ms: 'step_time_ms',
  took_ms: 'step_time_ms',
  step_ms: 'step_time_ms',
  iter_ms: 'step_time_ms',
  batch_ms: 'step_time_ms',
  data_ms: 'data_time_ms',
  data_time_ms: 'data_time_ms',
  mfu_percent: 'mfu_percent',
  tflops: 'tflops',
  tflops_per_sec: 'tflops',
  memory_gib: 'memory_gib',
  mem_gib: 'memory_gib',
  max_mem_gib: 'memory_gib',
  perplexity: 'ppl',
  val_ppl: 'eval_ppl',
  valid_ppl: 'eval_ppl',
  val_perplexity: 'eval_ppl',
};

/**
 * Logs repeat the same few dozen keys on every line, so names are computed once per distinct key.
 * The cache is cleared when full, which bounds it on logs that print ever-new keys.
 */
const NAME_CACHE_LIMIT = 4096;
const snakeCache = new Map<string, string>();
const canonicalCache = new Map<string, string>();

function remember(cache: Map<string, string>, key: string, value: string): string {
  if (cache.size >= NAME_CACHE_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}

/**
 * A printed key as snake_case: `/s` becomes `_per_sec`, `%` becomes `_percent`, everything else
 * that is not a letter or digit becomes one underscore; lower case; no leading/trailing `_`.
 */
export function toSnakeCase(key: string): string {
  const cached = snakeCache.get(key);
  if (cached !== undefined) return cached;
  let text = key;
  if (text.includes('/s')) text = text.replace(/\/s(?:ec(?:ond)?)?\b/g, ' per sec');
  if (text.includes('%')) text = text.replaceAll('%', ' percent');
  if (text.includes('@')) text = text.replaceAll('@', '');
  // camelCase word boundaries (`trainLoss`) become underscores too.
  text = text.replace(/([a-z0-9])([A-Z])/g, '$1_$2');
  const snake = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return remember(snakeCache, key, snake);
}

/** A printed key (with an optional unit suffix already in snake_case) under its canonical name. */
export function canonicalName(key: string): string {
  const cached = canonicalCache.get(key);
  if (cached !== undefined) return cached;
  const snake = toSnakeCase(key);
  return remember(canonicalCache, key, ALIASES[snake] ?? snake);
}

const evalCache = new Map<string, string>();
const averageCache = new Map<string, string>();

/**
 * The eval-phase name of a value: `loss` → `eval_loss`, `accuracy` → `eval_accuracy`,
 * `avg_loss` → `avg_eval_loss`. Names that already say eval (or validation) stay.
 */
export function evalName(name: string): string {
  const cached = evalCache.get(name);
  if (cached !== undefined) return cached;
  let result: string;
  if (name.startsWith(EVAL_PREFIX)) result = name;
  else if (name.startsWith(AVERAGE_PREFIX)) result = averageName(evalName(name.slice(AVERAGE_PREFIX.length)));
  else result = ALIASES[`val_${name}`] ?? `${EVAL_PREFIX}${name}`;
  return remember(evalCache, name, result);
}

/** The name of a running average of a value: `loss` → `avg_loss`. */
export function averageName(name: string): string {
  return averageCache.get(name) ?? remember(averageCache, name, `${AVERAGE_PREFIX}${name}`);
}

/** Step-like keys that make a `k=v` line a progress report rather than a configuration dump. */
export const STEP_KEYS: ReadonlySet<string> = new Set(['step', 'global_step', 'train_step', 'iter', 'iteration', 'update', 'num_updates', 'epoch']);

/** The keys above that are the step itself (epoch is kept as a value, not as the step). */
export const STEP_NUMBER_KEYS: ReadonlySet<string> = new Set(['step', 'global_step', 'train_step', 'iter', 'iteration', 'update', 'num_updates']);

/**
 * Names that are measured during training (as opposed to settings such as `lr` or `batch_size`),
 * for the generic parser's rule that a lone `key: value` is a metric only if the key is one.
 */
const MEASURED: ReadonlySet<string> = new Set([
  'loss',
  'eval_loss',
  'grad_norm',
  'tokens_per_sec',
  'samples_per_sec',
  'steps_per_sec',
  'step_time_ms',
  'data_time_ms',
  'mfu_percent',
  'accuracy',
  'eval_accuracy',
  'tflops',
  'ppl',
  'eval_ppl',
]);

/** True for a name that a training loop measures: the canonical ones, and any `*_loss` / `*_acc*`. */
export function isMeasuredName(name: string): boolean {
  if (MEASURED.has(name)) return true;
  // `loss_d`, `loss_g` (a GAN's two networks, pytorch/examples' DCGAN), `loss_ce`: losses too; a loss scale is not.
  if (name.startsWith('loss_') && name !== 'loss_scale') return true;
  return name.endsWith('_loss') || name.endsWith('_acc') || name.endsWith('_accuracy') || name.endsWith('_ppl');
}
