// The environment a comparison's runs were measured in, from each run's fingerprint and GPU settings: every fact once,
// and where runs differ, each value with the runs that had it, so an export says what the figures hold for.
import type { EnvironmentFact, Run } from '../../shared/api.js';
import { FINGERPRINT_LABELS } from '../../shared/fingerprintText.js';
import { NO_NVIDIA_SMI_NOTE } from '../telemetry/fingerprint.js';

type Group = EnvironmentFact['group'];

/** What a run without a fact shows beside runs that have it. */
const NOT_RECORDED = 'not recorded';

const count = (value: number) => value.toLocaleString('en-US');

function text(record: Readonly<Record<string, unknown>> | null, key: string): string | null {
  const value = record?.[key];
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function number(record: Readonly<Record<string, unknown>> | null, key: string): number | null {
  const value = record?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The GPU a run ran on: its fingerprint's name, else its settings' (the fingerprint may have failed), else none at all. */
function gpuOf(run: Run): string | null {
  const named = text(run.fingerprint, 'gpuName') ?? text(run.gpuSettings, 'name');
  if (named !== null) return named;
  return run.telemetryNotes.some((note) => note.endsWith(NO_NVIDIA_SMI_NOTE)) ? 'none (no nvidia-smi: host telemetry only)' : null;
}

function cpuOf(run: Run): string | null {
  const model = text(run.fingerprint, 'cpuModel');
  const threads = number(run.fingerprint, 'cpuCores');
  if (model === null) return threads === null ? null : `${count(threads)} threads`;
  return threads === null ? model : `${model}, ${count(threads)} threads`;
}

function pcieOf(run: Run): string | null {
  const gen = text(run.fingerprint, 'pcieGen');
  const width = text(run.fingerprint, 'pcieWidth');
  if (gen === null && width === null) return null;
  return [gen && `Gen ${gen}`, width && `x${width}`].filter(Boolean).join(' ');
}

/** A clock lock as the settings record it (`{minMHz, maxMHz}`, or null when none was set): `1,980 MHz`, `1,500-2,100 MHz`, `none`. */
function clockLock(run: Run, key: string): string | null {
  if (run.gpuSettings === null || !(key in run.gpuSettings)) return null;
  const lock = run.gpuSettings[key] as { minMHz?: unknown; maxMHz?: unknown } | null;
  if (lock === null || typeof lock.minMHz !== 'number') return 'none';
  const max = typeof lock.maxMHz === 'number' ? lock.maxMHz : lock.minMHz;
  return lock.minMHz === max ? `${count(lock.minMHz)} MHz` : `${count(lock.minMHz)}-${count(max)} MHz`;
}

interface FactReader {
  group: Group;
  label: string;
  read: (run: Run) => string | null;
}

/** In the order a reader looks for them: the box, its GPU, its CPU and memory; what was set on the GPU; the software. */
const FACTS: readonly FactReader[] = [
  { group: 'machine', label: FINGERPRINT_LABELS.hostname!, read: (r) => text(r.fingerprint, 'hostname') ?? r.origin?.machine.label ?? null },
  { group: 'machine', label: FINGERPRINT_LABELS.gpuName!, read: gpuOf },
  { group: 'machine', label: FINGERPRINT_LABELS.driverVersion!, read: (r) => text(r.fingerprint, 'driverVersion') },
  { group: 'machine', label: FINGERPRINT_LABELS.cudaVersion!, read: (r) => text(r.fingerprint, 'cudaVersion') },
  { group: 'machine', label: FINGERPRINT_LABELS.pcieGen!, read: pcieOf },
  { group: 'machine', label: FINGERPRINT_LABELS.cpuModel!, read: cpuOf },
  {
    group: 'machine',
    label: FINGERPRINT_LABELS.memoryGiB!,
    read: (r) => (number(r.fingerprint, 'memoryGiB') === null ? null : `${count(number(r.fingerprint, 'memoryGiB')!)} GiB`),
  },
  { group: 'machine', label: FINGERPRINT_LABELS.kernel!, read: (r) => text(r.fingerprint, 'kernel') },
  {
    group: 'gpu settings',
    label: 'Persistence',
    read: (r) => (typeof r.gpuSettings?.persistenceMode === 'boolean' ? (r.gpuSettings.persistenceMode ? 'on' : 'off') : null),
  },
  {
    group: 'gpu settings',
    label: 'Power limit',
    read: (r) => (number(r.gpuSettings, 'powerLimitW') === null ? null : `${count(number(r.gpuSettings, 'powerLimitW')!)} W`),
  },
  { group: 'gpu settings', label: 'Clock lock', read: (r) => clockLock(r, 'clockLock') },
  { group: 'gpu settings', label: 'Memory clock lock', read: (r) => clockLock(r, 'memoryClockLock') },
  { group: 'software', label: FINGERPRINT_LABELS.pythonVersion!, read: (r) => text(r.fingerprint, 'pythonVersion') },
  { group: 'software', label: FINGERPRINT_LABELS.torchVersion!, read: (r) => text(r.fingerprint, 'torchVersion') },
  { group: 'software', label: FINGERPRINT_LABELS.torchCuda!, read: (r) => text(r.fingerprint, 'torchCuda') },
  { group: 'software', label: FINGERPRINT_LABELS.cudnn!, read: (r) => text(r.fingerprint, 'cudnn') },
];

/** Each fact any run recorded, with its values in the order runs first had them. A fact no run has is left out. */
export function describeEnvironment(runs: readonly Run[]): EnvironmentFact[] {
  const facts: EnvironmentFact[] = [];
  for (const fact of FACTS) {
    const byValue = new Map<string, number[]>();
    for (const run of runs) {
      const value = fact.read(run) ?? NOT_RECORDED;
      byValue.set(value, [...(byValue.get(value) ?? []), run.id]);
    }
    if (byValue.size === 1 && byValue.has(NOT_RECORDED)) continue;
    facts.push({ group: fact.group, label: fact.label, values: [...byValue].map(([value, runIds]) => ({ text: value, runIds })) });
  }
  return facts;
}
