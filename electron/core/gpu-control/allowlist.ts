// The only nvidia-smi argument vectors GPU control ever runs (DESIGN: -pm, -lgc, -rgc, -lmc, -rmc, -pl),
// built from parsed numbers and checked again right before they are executed, as argv, never by a shell.
import type { GpuOperation } from '../../shared/gpuSettings.js';

/** Watts as nvidia-smi takes them: a restore may put back a fractional limit the driver reported (212.50 W). */
function formatWatts(watts: number): string {
  return Number.isInteger(watts) ? String(watts) : watts.toFixed(2);
}

/** `-i GPU` and the operation's option, e.g. ['-i', '0', '-lgc', '2100,2100']. */
export function operationArgs(op: GpuOperation, gpu: string): string[] {
  const select = ['-i', gpu];
  switch (op.kind) {
    case 'persistence':
      return [...select, '-pm', op.enabled ? '1' : '0'];
    case 'lockClocks':
      return [...select, '-lgc', `${op.range.minMHz},${op.range.maxMHz}`];
    case 'resetClocks':
      return [...select, '-rgc'];
    case 'lockMemoryClocks':
      return [...select, '-lmc', `${op.range.minMHz},${op.range.maxMHz}`];
    case 'resetMemoryClocks':
      return [...select, '-rmc'];
    case 'powerLimit':
      return [...select, '-pl', formatWatts(op.watts)];
  }
}

const GPU = /^(?:\d{1,2}|GPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/u;
const VALUE_OF: Record<string, RegExp | null> = {
  '-pm': /^[01]$/u,
  '-lgc': /^\d{1,5},\d{1,5}$/u,
  '-lmc': /^\d{1,5},\d{1,5}$/u,
  '-pl': /^\d{1,4}(?:\.\d{1,2})?$/u,
  '-rgc': null,
  '-rmc': null,
};

/**
 * Throws unless `args` is exactly one allowlisted vector. The same rules as build/gpu-helper's, so
 * what the app would run as root is what the helper accepts.
 */
export function assertAllowlisted(args: readonly string[]): void {
  const [dashI, gpu, option, value, ...rest] = args;
  const pattern = option === undefined ? undefined : VALUE_OF[option];
  const ok =
    dashI === '-i' &&
    gpu !== undefined &&
    GPU.test(gpu) &&
    pattern !== undefined &&
    rest.length === 0 &&
    (pattern === null ? value === undefined : value !== undefined && pattern.test(value));
  if (!ok) throw new Error(`refused to run nvidia-smi ${args.join(' ')}: not one of the allowlisted GPU control commands`);
}
