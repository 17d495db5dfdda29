// A run as the engine records it, for tests that format, compare or judge runs without running anything.
import { run as runSchema, type Run } from '../../electron/shared/api.js';

/** The record's fields every test fills the same way (a succeeded run of `python train.py`), with `fields` over them. */
export function recordedRun(id: number, fields: { summary: Record<string, unknown> } & Record<string, unknown>): Run {
  return runSchema.parse({
    id,
    workloadId: null,
    workloadName: null,
    status: 'succeeded',
    exitCode: 0,
    signal: null,
    exitClass: 'ok',
    exitReason: null,
    startedAt: new Date(Date.UTC(2026, 10, 29, 10, 0, id)).toISOString(),
    endedAt: new Date(Date.UTC(2026, 10, 29, 10, 1, id)).toISOString(),
    command: ['python', 'train.py'],
    cwd: '/tmp',
    config: {},
    env: {},
    pid: null,
    outputBytes: 0,
    gpuSettings: null,
    fingerprint: {},
    ...fields,
  });
}
