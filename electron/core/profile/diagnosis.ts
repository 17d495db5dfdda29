// Plain-language readings of a step profile and the run's telemetry: what bounds the step, and what to try. Each
// sentence says only what the profile measured: syncs only where the host waited for a device, input by its stated
// definition, shares without the profiler's overhead when it was measured.
import type { RunProfile } from '../../shared/profile.js';

/** A phase that takes at least this share of the step is worth a sentence (10 %: below it, tuning it gains little). */
export const NOTABLE_SHARE = 0.1;
/**
 * Kernels shorter than this, on average, cost about as much to launch as to run: a CUDA launch takes a few
 * microseconds of host time (NVIDIA's CUDA C++ Best Practices Guide), so 20 µs kernels are launch-bound.
 */
export const TINY_KERNEL_US = 20;
/** GPU idle for at least this share of the step means the host, not the GPU, sets the pace. */
export const GPU_IDLE_SHARE = 0.3;
/** Device waits per step from which syncs are worth removing on a GPU (each costs a pipeline drain). */
export const MANY_SYNCS_PER_STEP = 10;
/** Sync sites named in a reading: the few that make most of the waits. */
const NAMED_SITES = 3;
/** Matrix-multiply operators, whose share says "compute-bound". */
const MATMUL_OPS = /^aten::(mm|addmm|bmm|baddbmm|matmul|linear|_scaled_dot_product|conv|cudnn_convolution|mkldnn_convolution)/u;

export interface TelemetryFacts {
  gpuUtilMean: number | null;
  cpuMean: number | null;
}

const pct = (share: number) => `${Math.round(share * 100)} %`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

export function diagnose(profile: Omit<RunProfile, 'diagnosis'>, telemetry: TelemetryFacts): string[] {
  const { syncs, gpu } = profile;
  if (profile.status !== 'ok' || profile.phases.stepMs === null || profile.phases.stepMs <= 0) return [];
  // Shares as they would be without the profiler, where its overhead was measured and spread over the phases.
  const estimated = profile.overhead?.estimatedPhases ?? null;
  const phases = estimated ?? profile.phases;
  const step = phases.stepMs!;
  const basis = estimated ? " (shares estimated without the profiler's overhead)" : '';
  const readings: string[] = [];
  const cuda = profile.device === 'cuda';
  const steps = Math.max(1, profile.keptSteps || profile.steps.length);

  const data = phases.dataLoadingMs ?? 0;
  const own = phases.inputMs ?? 0;
  const input = data + own;
  if (input / step >= NOTABLE_SHARE) {
    const gpuIdle = telemetry.gpuUtilMean !== null ? ` while the GPU was ${Math.round(telemetry.gpuUtilMean)} % busy` : '';
    const functions = profile.input?.functions ?? [];
    const parts = [
      data > 0 ? `${pct(data / step)} waiting in the DataLoader` : null,
      own > 0
        ? `${pct(own / step)} in the script's own batch code${
            functions.length > 0
              ? ` (${functions
                  .slice(0, 2)
                  .map((f) => `${f.function}: ${ms(f.msPerStep)} per profiled step`)
                  .join(', ')})`
              : ''
          }`
        : null,
    ].filter(Boolean);
    const tryThis =
      own > data
        ? 'prepare batches ahead of the step (a DataLoader with num_workers > 0 over a Dataset, or a background thread), and copy them with pin_memory and non_blocking=True on a GPU'
        : 'DataLoader num_workers > 0 (with persistent_workers=True), pin_memory=True on a GPU, or cheaper per-sample work in the Dataset';
    readings.push(
      `input-bound: ${pct(input / step)} of each step is input: ${parts.join(', ')}, ${ms(input)} of ${ms(step)}${gpuIdle}${basis}; try ${tryThis}`,
    );
  }
  // A sync is counted only where the host waited for the device (CUDA); on a CPU there is nothing to wait for.
  const waitsPerStep = cuda && syncs?.deviceWaits !== null && syncs?.deviceWaits !== undefined ? syncs.deviceWaits / steps : null;
  if (waitsPerStep !== null && waitsPerStep >= MANY_SYNCS_PER_STEP) {
    const sites = (syncs?.sites ?? []).slice(0, NAMED_SITES).map((s) => `${s.site} (${s.what}, ${formatCount(s.callsPerStep)} per step)`);
    const named =
      sites.length > 0
        ? `; most from ${sites.join(', ')}`
        : '; none from a line of the script that reads a tensor: they are inside PyTorch operators (nonzero, boolean indexing) or a library';
    readings.push(
      `sync-bound: the host waited for the GPU ${formatCount(waitsPerStep)} times per step${named}; keep values on the device ` +
        'and read them every N steps, or accumulate them in a tensor',
    );
  }
  if (cuda && gpu?.idleMsPerStep !== null && gpu?.idleMsPerStep !== undefined && gpu.idleMsPerStep / profile.phases.stepMs! >= GPU_IDLE_SHARE) {
    const measuredStep = profile.phases.stepMs!;
    const kernelsPerStep = gpu.kernels !== null ? gpu.kernels / steps : null;
    if (gpu.meanKernelUs !== null && gpu.meanKernelUs < TINY_KERNEL_US) {
      readings.push(
        `launch-bound: many tiny kernels (${kernelsPerStep === null ? '?' : Math.round(kernelsPerStep).toLocaleString('en-US')} per step, ` +
          `${gpu.meanKernelUs.toFixed(1)} µs on average) and the GPU idle ${pct(gpu.idleMsPerStep / measuredStep)} of the step; try torch.compile or CUDA graphs, or a larger batch`,
      );
    } else {
      readings.push(
        `GPU idle ${pct(gpu.idleMsPerStep / measuredStep)} of each step (${ms(gpu.idleMsPerStep)}): the host sets the pace; look at the phases above for where it waits`,
      );
    }
  }
  const optimizer = phases.optimizerMs ?? 0;
  if (optimizer / step >= 2 * NOTABLE_SHARE) {
    readings.push(
      `optimizer-heavy: the optimizer takes ${pct(optimizer / step)} of each step${basis}; try foreach=True or fused=True (PyTorch 2), or fewer parameter tensors`,
    );
  }
  const matmul = profile.ops.filter((op) => MATMUL_OPS.test(op.name)).reduce((sum, op) => sum + op.selfMs, 0);
  if (readings.length === 0 && matmul / profile.phases.stepMs! >= 3 * NOTABLE_SHARE) {
    readings.push(
      `compute-bound: matrix multiplies take ${pct(matmul / profile.phases.stepMs!)} of each profiled step; gains come from less arithmetic or faster arithmetic ` +
        (cuda ? '(AMP bf16/fp16, TF32, a larger batch per kernel)' : '(more threads, a BLAS such as OpenBLAS or MKL, bf16 autocast on CPUs that support it)'),
    );
  }
  if (readings.length === 0) {
    const parts = (
      [
        ['forward', phases.forwardMs],
        ['backward', phases.backwardMs],
        ['optimizer', phases.optimizerMs],
        ['data loading', phases.dataLoadingMs],
        ['input', phases.inputMs],
        ['other', phases.otherMs],
      ] as const
    )
      .filter(([, value]) => value !== null && value > 0)
      .map(([name, value]) => `${name} ${pct(value! / step)}`);
    readings.push(`no single bottleneck: ${parts.join(', ')} of a ${ms(step)} step${basis}`);
  }
  return readings;
}

function formatCount(value: number): string {
  return value >= 10 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1).replace(/\.0$/u, '');
}
