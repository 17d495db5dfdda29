// The one variable model (shared/variables.ts): names, kinds, values, and the `--set` / `--vary` text every face reads.
import { describe, expect, it } from 'vitest';
import { expandWorkload } from '../../electron/core/runner/template.js';
import { elideMiddle, formatRunTable } from '../../electron/cli/format.js';
import { EMPTY_SUMMARY } from '../../electron/core/store/runStore.js';
import type { Run } from '../../electron/shared/api.js';
import { parseAssignment, parseVary, templateVariables, valueProblem } from '../../electron/shared/variables.js';

const BUILTINS = { resources: '/r', node: '/n' };

function expand(command: string[], values: Record<string, string>, mode: 'argv' | 'shell' = 'argv') {
  const variables = templateVariables(command, mode).map((spec) => ({ name: spec.name, default: '', description: '' }));
  return expandWorkload({ name: 'w', command, cwd: '/', env: {}, variables, mode }, values, BUILTINS).command;
}

describe('what a variable is', () => {
  it('is a flag where each placeholder is a whole argument after no option, a value everywhere else', () => {
    expect(templateVariables(['python', 'train.py', '--batch_size', '{batch}', '{amp}', '--lr={lr}', 'run-{tag}', '{resources}/x'], 'argv')).toEqual([
      { name: 'batch', kind: 'value' },
      { name: 'amp', kind: 'flag' },
      { name: 'lr', kind: 'value' },
      { name: 'tag', kind: 'value' },
    ]);
    expect(templateVariables(['python train.py --batch_size {batch} {amp}; echo "{note}" {extra}'], 'shell')).toEqual([
      { name: 'batch', kind: 'value' },
      { name: 'amp', kind: 'flag' },
      { name: 'note', kind: 'value' },
      { name: 'extra', kind: 'flag' },
    ]);
    // Written both ways: it needs a value.
    expect(templateVariables(['x', '{v}', '--v={v}'], 'argv')).toEqual([{ name: 'v', kind: 'value' }]);
  });

  it('an empty flag is an absent argument; an empty value is refused with the fix', () => {
    expect(expand(['python', 'train.py', '{amp}', '--steps', '3'], { amp: '' })).toEqual(['python', 'train.py', '--steps', '3']);
    expect(expand(['python', 'train.py', '{amp}'], { amp: '--amp' })).toEqual(['python', 'train.py', '--amp']);
    expect(expand(['python train.py {amp} --steps 3'], { amp: '' }, 'shell')).toEqual(['/bin/sh', '-c', 'python train.py  --steps 3']);
    expect(() => expand(['python', 'train.py', '--batch_size', '{batch}'], { batch: '' })).toThrow(/\{batch\} has no value/u);
    expect(() => expand(['python train.py --batch_size {batch}'], { batch: '' }, 'shell')).toThrow(/\{batch\} has no value/u);
    expect(valueProblem({ name: 'batch', kind: 'value' }, '', (name) => `--set ${name}=16`)).toMatch(/--set batch=16/u);
    expect(valueProblem({ name: 'amp', kind: 'flag' }, '')).toBeNull();
  });

  it('reads --set and --vary text, empty values included, and says what it takes', () => {
    expect(parseAssignment('batch=16')).toEqual({ name: 'batch', value: '16' });
    expect(parseAssignment('amp=')).toEqual({ name: 'amp', value: '' });
    expect(parseAssignment('batch')).toMatchObject({ error: expect.stringMatching(/takes VAR=VALUE/u) });
    expect(parseVary('amp=,--amp')).toEqual({ name: 'amp', values: ['', '--amp'] });
    expect(parseVary('batch=8,16')).toEqual({ name: 'batch', values: ['8', '16'] });
    expect(parseVary('batch=')).toMatchObject({ error: expect.stringMatching(/takes VAR=V1,V2/u) });
  });
});

describe('the runs table (issue 28, item 6)', () => {
  const run = (id: number, command: string[]): Run =>
    ({
      id,
      status: 'succeeded',
      exitClass: 'ok',
      startedAt: '2024-05-02T13:45:01.000Z',
      endedAt: '2024-05-02T13:46:01.000Z',
      workloadName: null,
      config: {},
      command,
      outputBytes: 10,
      summary: EMPTY_SUMMARY,
    }) as unknown as Run;

  it('shortens a command from its middle, marked, so its end (the flags that differ) stays', () => {
    expect(elideMiddle('python train.py --data /very/long/path/to/data --batch_size 16', 30)).toMatch(/^python tra.*….*--batch_size 16$/u);
    expect(elideMiddle('short', 30)).toBe('short');
    const table = formatRunTable([run(1, ['python', 'train.py', '--data', '/very/long/path/to/some/dataset/folder', '--batch_size', '16'])], 100);
    const row = table.split('\n')[1]!;
    expect(row.length).toBeLessThanOrEqual(100);
    expect(row).toContain('…');
    expect(row).toMatch(/--batch_size 16$/u);
  });
});
