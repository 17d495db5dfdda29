// GPU control: the state read before a change, the journal, run settings, profiles, elevation.
import { z } from 'zod';
import { gpuOperationInput, gpuSelectorText } from '../gpuSettings.js';
import { empty, nullableNumber } from './common.js';

export const clockRange = z.object({ minMHz: z.number(), maxMHz: z.number() });

/** What GPU control reads before it changes anything (`nvidia-smi -q -x -i GPU`), and the locks it knows of. */
export const gpuControlState = z.object({
  index: z.number().int(),
  uuid: z.string().nullable(),
  busId: z.string().nullable(),
  name: z.string().nullable(),
  persistenceMode: z.boolean().nullable(),
  clocks: z.object({
    graphicsMHz: nullableNumber,
    memMHz: nullableNumber,
    maxGraphicsMHz: nullableNumber,
    maxMemMHz: nullableNumber,
    maxCustomerBoostMHz: nullableNumber,
    defaultApplicationsGraphicsMHz: nullableNumber,
  }),
  /** Highest first; empty where the driver lists none (`N/A` on old drivers). */
  supportedGraphicsMHz: z.array(z.number()),
  supportedMemoryMHz: z.array(z.number()),
  power: z.object({
    drawW: nullableNumber,
    limitW: nullableNumber,
    requestedLimitW: nullableNumber,
    defaultLimitW: nullableNumber,
    minLimitW: nullableNumber,
    maxLimitW: nullableNumber,
  }),
  /**
   * Clock locks in force as far as Tuning Bench knows: nvidia-smi does not report `-lgc`/`-lmc`, so
   * these come from the journal (a run's own lock, or a manual one since the last boot).
   */
  locks: z.object({ clocks: clockRange.nullable(), memoryClocks: clockRange.nullable() }),
  processes: z.array(z.object({ pid: z.number().int(), name: z.string().nullable(), usedMemoryMiB: nullableNumber })),
});

export const gpuJournalEntry = z.object({
  id: z.number().int(),
  createdAt: z.string(),
  gpu: z.string(),
  operation: z.enum(['persistence', 'lockClocks', 'resetClocks', 'lockMemoryClocks', 'resetMemoryClocks', 'powerLimit']),
  prior: z.record(z.string(), z.unknown()),
  applied: z.record(z.string(), z.unknown()),
  scope: z.enum(['run', 'sweep', 'manual']),
  ownerPid: z.number().int().nullable(),
  runId: z.number().int().nullable(),
  state: z.enum(['pending', 'applied', 'restored', 'failed']),
  restoredAt: z.string().nullable(),
  error: z.string().nullable(),
  /** One line: "lock GPU clocks at 2100 MHz (run 12)". */
  description: z.string(),
});

export const gpuRunSettings = z.object({
  persistence: z.boolean().optional(),
  lockClocks: clockRange.optional(),
  lockMemoryClocks: clockRange.optional(),
  powerLimitW: z.number().optional(),
});

export const gpuProfile = z.object({
  id: z.enum(['max-sustained', 'base-clock']),
  name: z.string(),
  settings: gpuRunSettings,
  /** Where the numbers come from, said plainly (a driver value, or an estimate and why). */
  basis: z.string(),
});

export const gpuElevation = z.object({
  mode: z.enum(['root', 'sudo', 'pkexec', 'manual']),
  detail: z.string(),
});

export type GpuControlState = z.output<typeof gpuControlState>;

export type GpuJournalEntry = z.output<typeof gpuJournalEntry>;

export type GpuProfile = z.output<typeof gpuProfile>;

export type GpuElevation = z.output<typeof gpuElevation>;

/** GPU methods: `gpu.*`. */
export const gpuMethods = {
  /** The GPU info card from `nvidia-smi -q -x`, or why there is none. */
  'gpu.info': {
    input: empty,
    output: z.object({ available: z.boolean(), reason: z.string().nullable(), card: z.record(z.string(), z.unknown()).nullable() }),
  },
  /** GPU control: the state, how the app gets root, profiles, and journal entries not yet restored. */
  'gpu.status': {
    input: z.object({ gpu: gpuSelectorText.optional() }).strict(),
    output: z.object({
      available: z.boolean(),
      reason: z.string().nullable(),
      gpu: z.string(),
      state: gpuControlState.nullable(),
      elevation: gpuElevation,
      profiles: z.array(gpuProfile),
      /** Changes of runs or sweeps whose engine died before restoring them. */
      abandoned: z.array(gpuJournalEntry),
      /** Manual changes in force (they stay until reset or a reboot). */
      manual: z.array(gpuJournalEntry),
      /** A run or sweep holding this GPU's settings now. */
      heldBy: z.string().nullable(),
    }),
  },
  /** A manual change that stays: journaled, checked against the GPU's ranges, run with the least privilege that works. */
  'gpu.apply': {
    input: z.object({ gpu: gpuSelectorText.optional(), operation: gpuOperationInput, confirmOtherProcesses: z.boolean().default(false) }).strict(),
    output: z.object({ message: z.string(), via: gpuElevation.shape.mode, warnings: z.array(z.string()), state: gpuControlState.nullable() }),
  },
  /** Puts back what abandoned runs or sweeps changed (the desktop asks first; the CLI does it at start). */
  'gpu.restoreAbandoned': {
    input: empty,
    output: z.object({ restored: z.array(gpuJournalEntry), failed: z.array(gpuJournalEntry) }),
  },
} as const;
