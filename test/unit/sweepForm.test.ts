// The New sweep form's text fields as requests: values split and checked, shared values as shown, the finder's
// request at the baseline, and a found batch put back where the form uses that variable.
import { describe, expect, it } from 'vitest';
import type { Workload } from '../../electron/shared/api.js';
import {
  finderStartDefault,
  initialSweepFields,
  parseFinderFields,
  parseSweepFields,
  splitValues,
  suggestedWork,
  typedCommandOf,
  withFoundValue,
  withTypedCommand,
  withWorkload,
  type SweepFields,
} from '../../renderer/src/sweeps/sweepForm.js';
import { adHocWorkload } from '../../electron/shared/typedCommand.js';

const workload = (id: number, names: string[]): Workload => ({
  id,
  name: `w${id}`,
  description: '',
  cwd: '/tmp',
  mode: 'argv',
  command: ['train'],
  tokensPerStep: '',
  metricRegex: '',
  steps: null,
  env: {},
  variables: names.map((name) => ({ name, default: name === 'batch' ? '8' : 'x', description: '' })),
  builtin: false,
  createdAt: '2026-01-01T00:00:00Z',
});

const SYNTHETIC = workload(1, ['batch', 'amp', 'steps']);

function fields(change: Partial<SweepFields> = {}): SweepFields {
  return { ...initialSweepFields(SYNTHETIC), ...change };
}

describe('splitValues', () => {
  it('trims and drops empty items', () => {
    expect(splitValues(' 8, 16,32 ,')).toEqual(['8', '16', '32']);
    expect(splitValues('')).toEqual([]);
  });
});

describe('parseSweepFields', () => {
  it('starts with a row for the batch and makes a request with every other variable shared', () => {
    const form = fields({ vary: [{ name: 'batch', values: '8, 16' }], shared: { steps: '40' }, repeats: '2' });
    expect(parseSweepFields(form, SYNTHETIC)).toEqual({
      ok: true,
      value: {
        workloadId: 1,
        values: { amp: 'x', steps: '40' },
        vary: [{ name: 'batch', values: ['8', '16'] }],
        plan: 'ladder',
        repeats: 2,
        waitForIdle: true,
        maxWaitSeconds: 120,
      },
    });
  });

  it('gives the work per step as an expression of the variables, and warm-up steps for every run', () => {
    const form = fields({ vary: [{ name: 'batch', values: '16, 64' }], work: { kind: 'samples', expression: '{batch}' }, warmupSteps: '5' });
    const parsed = parseSweepFields(form, SYNTHETIC);
    expect(parsed.ok && parsed.value).toMatchObject({ samplesPerStep: '{batch}', steps: { warmupSteps: 5, excludeSteps: [] } });
    const tokens = parseSweepFields(fields({ vary: [{ name: 'batch', values: '16, 64' }], work: { kind: 'tokens', expression: '{batch} * 256' } }), SYNTHETIC);
    expect(tokens.ok && tokens.value).toMatchObject({ tokensPerStep: '{batch} * 256' });
    expect(tokens.ok && 'samplesPerStep' in tokens.value).toBe(false);
    const unknown = parseSweepFields(fields({ vary: [{ name: 'batch', values: '16, 64' }], work: { kind: 'samples', expression: '{bs}' } }), SYNTHETIC);
    expect(!unknown.ok && unknown.error).toMatch(/\{bs\} is not a variable/u);
    expect(suggestedWork(SYNTHETIC)).toBe('{batch}');
  });

  it('adds limits, a name, and no wait when unticked', () => {
    const form = fields({ vary: [{ name: 'amp', values: 'off,on' }], name: ' mine ', maxSteps: '1,000', timeLimitMinutes: '1,5', waitForIdle: false });
    const parsed = parseSweepFields(form, SYNTHETIC);
    expect(parsed.ok && parsed.value).toMatchObject({ name: 'mine', maxSteps: 1000, timeoutSeconds: 90, waitForIdle: false });
    expect(parsed.ok && 'maxWaitSeconds' in parsed.value).toBe(false);
  });

  it('reads every duration in minutes, as New run does: the per-run limit and the wait for an idle GPU', () => {
    const form = fields({ vary: [{ name: 'amp', values: 'off,on' }], timeLimitMinutes: '30', maxWaitMinutes: '0.5' });
    const parsed = parseSweepFields(form, SYNTHETIC);
    expect(parsed.ok && parsed.value).toMatchObject({ timeoutSeconds: 1800, maxWaitSeconds: 30 });
    const noWait = parseSweepFields(fields({ vary: [{ name: 'amp', values: 'off,on' }], maxWaitMinutes: '0' }), SYNTHETIC);
    expect(noWait.ok && noWait.value).toMatchObject({ maxWaitSeconds: 0 });
  });

  it.each([
    [{ vary: [{ name: 'batch', values: '' }] }, 'batch: give its values'],
    [{ vary: [] }, 'vary at least one variable'],
    [
      {
        vary: [
          { name: 'batch', values: '8' },
          { name: 'batch', values: '16' },
        ],
      },
      'batch is varied twice',
    ],
    [{ vary: [{ name: 'batch', values: '8,16' }], repeats: '0' }, 'Repeats: give a whole number from 1 to 50'],
    [{ vary: [{ name: 'batch', values: '8,16' }], maxSteps: 'many' }, 'Per-run limit: give a whole number of steps'],
    [{ vary: [{ name: 'batch', values: '8,16' }], timeLimitMinutes: '-1' }, 'Per-run limit: give minutes, a number above 0'],
    [{ vary: [{ name: 'batch', values: '8,16' }], timeLimitMinutes: '20000' }, 'Per-run limit: at most a week (10080 minutes)'],
    [{ vary: [{ name: 'batch', values: '8,16' }], maxWaitMinutes: '61' }, 'Wait at most: at most 60 minutes'],
  ] as Array<[Partial<SweepFields>, string]>)('refuses %j', (change, error) => {
    const parsed = parseSweepFields(fields(change), SYNTHETIC);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toContain(error);
  });
});

describe('the batch finder', () => {
  it('probes at the baseline: shared values and each varied first value, without its own variable', () => {
    const form = fields({
      vary: [
        { name: 'batch', values: '8, 16' },
        { name: 'amp', values: 'on, off' },
      ],
      shared: { steps: '40' },
    });
    expect(finderStartDefault(form, SYNTHETIC)).toBe('8');
    expect(parseFinderFields(form, SYNTHETIC)).toEqual({
      ok: true,
      value: { workloadId: 1, values: { amp: 'on', steps: '40' }, variable: 'batch', start: 8, maxSteps: 20 },
    });
  });

  it('starts at 1 when the value is not a whole number', () => {
    expect(finderStartDefault(fields({ vary: [{ name: 'batch', values: 'auto' }] }), SYNTHETIC)).toBe('1');
  });

  it('puts a found batch into the varied values, or as the shared value when it is not varied', () => {
    const varied = withFoundValue(fields({ vary: [{ name: 'batch', values: '8, 16' }] }), SYNTHETIC, 'batch', 24);
    expect(varied.vary).toEqual([{ name: 'batch', values: '8, 16, 24' }]);
    expect(withFoundValue(varied, SYNTHETIC, 'batch', 24)).toEqual(varied);
    const shared = withFoundValue(fields({ vary: [{ name: 'amp', values: 'off,on' }] }), SYNTHETIC, 'batch', 24);
    expect(shared.shared).toEqual({ batch: '24' });
  });

  it('switches the form to the finder workload first', () => {
    const other = workload(2, ['batch', 'lr']);
    const next = withFoundValue(fields({ vary: [{ name: 'amp', values: 'off,on' }], repeats: '5' }), other, 'batch', 64);
    expect(next.workloadId).toBe(2);
    expect(next.repeats).toBe('5');
    expect(next.vary).toEqual([{ name: 'batch', values: '64' }]);
    expect(withWorkload(next, other)).toBe(next);
  });
});

describe('a typed command in the New sweep form', () => {
  const typedFields = (script: string, change: Partial<SweepFields> = {}): SweepFields =>
    fields({ source: 'typed', typedScript: script, typedCwd: '/home/me/project', vary: [{ name: '', values: '' }], ...change });
  const typedWorkload = (f: SweepFields) => adHocWorkload(typedCommandOf(f)!);

  it("becomes the request's command, as one shell script in its directory, with no workload", () => {
    const f = withTypedCommand(
      typedFields('python train.py --bs {batch} --note {note}'),
      typedWorkload(typedFields('python train.py --bs {batch} --note {note}')),
    );
    const typed = { ...f, vary: [{ name: f.vary[0]!.name, values: '8, 16' }], shared: { note: 'a b' } };
    const parsed = parseSweepFields(typed, typedWorkload(typed));
    expect(parsed).toEqual({
      ok: true,
      value: expect.objectContaining({
        command: { template: ['python train.py --bs {batch} --note {note}'], mode: 'shell', cwd: '/home/me/project' },
        vary: [{ name: 'batch', values: ['8', '16'] }],
        values: { note: 'a b' },
      }),
    });
    expect(parsed.ok && 'workloadId' in parsed.value).toBe(false);
  });

  it('readies its first placeholder to vary, and follows a placeholder renamed', () => {
    const first = typedFields('train --bs {batch} --lr {lr}');
    expect(withTypedCommand(first, typedWorkload(first)).vary.map((row) => row.name)).toEqual(['batch']);
    const renamed = typedFields('train --batch_size {bs} --lr {lr}', { vary: [{ name: 'batch', values: '8,16' }] });
    expect(withTypedCommand(renamed, typedWorkload(renamed)).vary).toEqual([{ name: 'bs', values: '8,16' }]);
    // Two rows take two different placeholders; nothing to take leaves the name empty.
    const two = typedFields('train {a} {b}', {
      vary: [
        { name: '', values: '1' },
        { name: '', values: '2' },
      ],
    });
    expect(withTypedCommand(two, typedWorkload(two)).vary.map((row) => row.name)).toEqual(['a', 'b']);
    const none = typedFields('train --fixed', { vary: [{ name: 'bs', values: '8' }] });
    expect(withTypedCommand(none, typedWorkload(none)).vary).toEqual([{ name: '', values: '8' }]);
  });

  it('says what is missing: the command, its directory, a placeholder', () => {
    expect(parseSweepFields(typedFields(''), null)).toEqual({ ok: false, error: 'type the command to sweep, with {placeholders} for what varies' });
    expect(parseSweepFields(typedFields('train {bs}', { typedCwd: ' ' }), null)).toEqual({ ok: false, error: 'give the directory the command runs in' });
    const fixed = typedFields('train --bs 8');
    expect(parseSweepFields(fixed, typedWorkload(fixed))).toMatchObject({ ok: false, error: expect.stringContaining('put a {placeholder} in the command') });
  });
});
