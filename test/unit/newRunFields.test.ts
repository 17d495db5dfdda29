// Edit and run again fills New run from a run: a typed command as typed, with its {variables} and their values.
import { describe, expect, it } from 'vitest';
import type { Run, Workload } from '../../electron/shared/api.js';
import { fieldsFromRun } from '../../renderer/src/runs/newRunFields.js';

const TEMPLATE = 'python train.py --batch_size {batch} {amp}';
const typedRun = (fields: Partial<Run>) =>
  ({
    workloadId: null,
    command: ['/bin/sh', '-c', 'python train.py --batch_size 16'],
    cwd: '/home/me/project',
    config: { batch: '16', amp: '' },
    unitsPerStep: null,
    typedCommand: { template: [TEMPLATE], mode: 'shell', cwd: '/home/me/project', values: { batch: '16', amp: '' } },
    ...fields,
  }) as Run;

describe('fieldsFromRun', () => {
  it('gives a typed run back as typed: the template, its values, the directory typed', () => {
    const fields = fieldsFromRun(typedRun({}), []);
    expect(fields).toMatchObject({ source: 'typed', typedScript: TEMPLATE, typedCwd: '/home/me/project', values: { batch: '16', amp: '' } });
  });

  it('runs a before/after side in the directory typed, not in its temporary worktree', () => {
    const fields = fieldsFromRun(typedRun({ cwd: '/data/worktrees/sweep-3/abc1234' }), []);
    expect(fields.typedCwd).toBe('/home/me/project');
  });

  it('quotes an argv template as a shell reads it, leaving its {variables} bare', () => {
    const typedCommand = {
      template: ['python', 'train.py', '--batch_size', '{batch}', '--name', 'a b'],
      mode: 'argv' as const,
      cwd: '/p',
      values: { batch: '8' },
    };
    expect(fieldsFromRun(typedRun({ typedCommand }), []).typedScript).toBe("python train.py --batch_size {batch} --name 'a b'");
  });

  it('falls back to the command that ran for a run stored before typed commands were kept', () => {
    const fields = fieldsFromRun(typedRun({ typedCommand: null }), []);
    expect(fields).toMatchObject({ source: 'typed', typedScript: 'python train.py --batch_size 16', typedCwd: '/home/me/project', values: {} });
  });

  it('fills the Knobs section with the knobs the run asked for, and keeps them out of the variables', () => {
    const workload = { id: 4, name: 'train' } as Workload;
    const fromWorkload = fieldsFromRun(typedRun({ workloadId: 4, typedCommand: null, config: { batch: '16', 'knob.workers': '4', 'knob.autocast': 'bf16' } }), [
      workload,
    ]);
    expect(fromWorkload).toMatchObject({ source: 'workload', values: { batch: '16' }, knobs: { workers: '4', autocast: 'bf16' } });
    expect(Object.keys(fromWorkload.values)).toEqual(['batch']);
    const typed = fieldsFromRun(typedRun({ config: { batch: '16', amp: '', 'knob.tf32': 'on' } }), []);
    expect(typed.knobs).toEqual({ tf32: 'on' });
    expect(fieldsFromRun(typedRun({}), []).knobs).toEqual({});
  });
});
