// Plain-language readings of a step profile and the run's telemetry: what bounds the step, and what to try.
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
/** Matrix-multiply operators, whose share says "compute-bound". */
const MATMUL_OPS = /^aten::(mm|addmm|bmm|baddbmm|matmul|linear|_scaled_dot_product|conv|cudnn_convolution|mkldnn_convolution)/u;

export interface TelemetryFacts {
  gpuUtilMean: number | null;
  cpuMean: number | null;
}

const pct = (share: number) => `${Math.round(share * 100)} %`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

export function diagnose(profile: Omit<RunProfile, 'diagnosis'>, telemetry: TelemetryFacts): string[] {
  const { phases, syncs, gpu } = profile;
  const step = phases.stepMs;
  if (profile.status !== 'ok' || step === null || step <= 0) return [];
  const readings: string[] = [];
  const cuda = profile.device === 'cuda';
  const perStepItems = syncs?.itemCalls !== null && syncs?.itemCalls !== undefined && profile.steps.length > 0 ? syncs.itemCalls / profile.steps.length : null;

  const data = phases.dataLoadingMs ?? 0;
  if (data / step >= NOTABLE_SHARE) {
    const gpuIdle = telemetry.gpuUtilMean !== null ? ` while the GPU was ${Math.round(telemetry.gpuUtilMean)} % busy` : '';
    readings.push(
      `input-bound: ${pct(data / step)} of each step waits for data (${ms(data)} of ${ms(step)})${gpuIdle}; try DataLoader ` +
        'num_workers > 0 (with persistent_workers=True), pin_memory=True on a GPU, or cheaper per-sample work in the Dataset',
    );
  }
  if (cuda && perStepItems !== null && perStepItems >= MANY_SYNCS_PER_STEP) {
    readings.push(
      `sync-bound: ${Math.round(perStepItems).toLocaleString('en-US')} \`.item()\` calls per step, each waiting for the GPU` +
        `${syncs?.streamSyncs ? ` (and ${Math.round(syncs.streamSyncs / profile.steps.length)} stream syncs)` : ''}; keep values on the device ` +
        'and read them every N steps, or accumulate them in a tensor',
    );
  } else if (!cuda && perStepItems !== null && perStepItems >= MANY_SYNCS_PER_STEP) {
    readings.push(
      `${Math.round(perStepItems).toLocaleString('en-US')} \`.item()\` calls per step: cheap on the CPU, but on a GPU each one would wait for the device`,
    );
  }
  if (cuda && gpu?.idleMsPerStep !== null && gpu?.idleMsPerStep !== undefined && gpu.idleMsPerStep / step >= GPU_IDLE_SHARE) {
    const kernelsPerStep = gpu.kernels !== null ? gpu.kernels / profile.steps.length : null;
    if (gpu.meanKernelUs !== null && gpu.meanKernelUs < TINY_KERNEL_US) {
      readings.push(
        `launch-bound: many tiny kernels (${kernelsPerStep === null ? '?' : Math.round(kernelsPerStep).toLocaleString('en-US')} per step, ` +
          `${gpu.meanKernelUs.toFixed(1)} µs on average) and the GPU idle ${pct(gpu.idleMsPerStep / step)} of the step; try torch.compile or CUDA graphs, or a larger batch`,
      );
    } else {
      readings.push(`GPU idle ${pct(gpu.idleMsPerStep / step)} of each step (${ms(gpu.idleMsPerStep)}): the host sets the pace; look at the phases above for where it waits`);
    }
  }
  const optimizer = phases.optimizerMs ?? 0;
  if (optimizer / step >= 2 * NOTABLE_SHARE) {
    readings.push(`optimizer-heavy: the optimizer takes ${pct(optimizer / step)} of each step; try foreach=True or fused=True (PyTorch 2), or fewer parameter tensors`);
  }
  const matmul = profile.ops.filter((op) => MATMUL_OPS.test(op.name)).reduce((sum, op) => sum + op.selfMs, 0);
  if (readings.length === 0 && matmul / step >= 3 * NOTABLE_SHARE) {
    readings.push(
      `compute-bound: matrix multiplies take ${pct(matmul / step)} of each step; gains come from less arithmetic or faster arithmetic ` +
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
        ['other', phases.otherMs],
      ] as const
    )
      .filter(([, value]) => value !== null)
      .map(([name, value]) => `${name} ${pct(value! / step)}`);
    readings.push(`no single bottleneck: ${parts.join(', ')} of a ${ms(step)} step`);
  }
  return readings;
}
