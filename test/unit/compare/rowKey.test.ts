// Which runs form one row of a comparison: never runs of different code, places or commands, pooled as if repeats.
import { describe, expect, it } from 'vitest';
import { rowKey, rowDistinctions } from '../../../electron/core/compare/rowKey.js';
import { compareRuns } from '../../../electron/core/compare/compare.js';
import { qualityGate, type Run } from '../../../electron/shared/api.js';
import { recordedRun } from '../../helpers/runRecord.js';

const GATE = qualityGate.parse({});
const NOW = new Date('2026-11-21T12:00:00.000Z');

let nextId = 1;
function fakeRun(
  over: {
    cwd?: string;
    command?: string[];
    commit?: string | null;
    diff?: string | null;
    sweep?: [number, number];
    checkout?: { root: string; relativeCwd: string };
    tps?: number;
  } = {},
): Run {
  const id = nextId++;
  const tps = over.tps ?? 1000;
  return recordedRun(id, {
    startedAt: new Date(Date.UTC(2026, 10, 21, 10, 0, id)).toISOString(),
    endedAt: new Date(Date.UTC(2026, 10, 21, 10, 1, id)).toISOString(),
    command: over.command ?? ['python', 'train.py'],
    cwd: over.cwd ?? '/home/me/a',
    git:
      over.commit === null
        ? null
        : {
            root: over.cwd ?? '/home/me/a',
            commit: over.commit ?? 'c'.repeat(40),
            branch: 'main',
            dirty: over.diff != null,
            diffSha256: over.diff ?? null,
            diffBytes: 10,
          },
    checkout: over.checkout ? { ...over.checkout, revision: 'main', commit: over.commit ?? 'c'.repeat(40), snapshot: null, links: [] } : null,
    summary: {
      steps: 100,
      throughput: { median: tps, iqr: 1, unit: 'tokens/s', blocks: Array.from({ length: 20 }, (_, i) => tps + (i % 3)) },
      stepTimeMs: { median: 10 },
      finalLoss: 1,
      nanDetected: false,
      gpu: null,
      host: null,
    },
    sweepId: over.sweep?.[0] ?? null,
    configIndex: over.sweep?.[1] ?? null,
    repeatIndex: over.sweep ? 0 : null,
  });
}

const rows = (runs: Run[]) => compareRuns(runs, { groupBy: 'config', gate: GATE, now: NOW }).rows.map((row) => [row.name, row.runIds.length]);

describe('the rows of a comparison', () => {
  it('keeps the same command run in two directories apart, each row named by its directory', () => {
    // Issue 29: two runs of nanoGPT in two copies of it (not repositories) were pooled into one row, n=2.
    const a = fakeRun({ cwd: '/home/me/nanoGPT', commit: null, tps: 1038 });
    const b = fakeRun({ cwd: '/home/me/nanoGPT-fast', commit: null, tps: 887 });
    expect(rowKey(a)).not.toBe(rowKey(b));
    expect(rows([a, b])).toEqual([
      ['python train.py (in /home/me/nanoGPT)', 1],
      ['python train.py (in /home/me/nanoGPT-fast)', 1],
    ]);
  });

  it('keeps different code apart (another commit, or other uncommitted changes), and pools repeats of the same', () => {
    const base = fakeRun({ commit: 'a'.repeat(40) });
    const again = fakeRun({ commit: 'a'.repeat(40) });
    const edited = fakeRun({ commit: 'a'.repeat(40), diff: 'd'.repeat(64) });
    const other = fakeRun({ commit: 'b'.repeat(40) });
    expect(rows([base, again, edited, other])).toEqual([
      ['python train.py (code aaaaaaa)', 2],
      ['python train.py (code aaaaaaa + uncommitted dddddddd)', 1],
      ['python train.py (code bbbbbbb)', 1],
    ]);
  });

  it('keeps other commands apart', () => {
    expect(rowKey(fakeRun({ command: ['python', 'train.py', '--amp'] }))).not.toBe(rowKey(fakeRun()));
  });

  it("pools a sweep config's repeats, but splits one whose code changed between them", () => {
    const first = fakeRun({ sweep: [3, 0] });
    const second = fakeRun({ sweep: [3, 0], command: ['python', 'train.py', '--seed', '2'] });
    expect(rowKey(first)).toBe(rowKey(second));
    const edited = fakeRun({ sweep: [3, 0], diff: 'e'.repeat(64) });
    expect(rowKey(edited)).not.toBe(rowKey(first));
  });

  it('pools re-runs of one before/after side, made again in different temporary folders', () => {
    const side = { root: '/home/me/nanoGPT', relativeCwd: '' };
    const one = fakeRun({ cwd: '/db/worktrees/rerun-4-abc/0123456789ab', checkout: side });
    const two = fakeRun({ cwd: '/db/worktrees/rerun-4-def/0123456789ab', checkout: side });
    expect(rowKey(one)).toBe(rowKey(two));
  });

  it('says nothing extra when the names already differ', () => {
    expect(rowDistinctions([fakeRun({ cwd: '/x' }), fakeRun({ cwd: '/y' })], ['a', 'b'])).toEqual(['', '']);
  });
});
