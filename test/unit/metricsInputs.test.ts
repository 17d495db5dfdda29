// The tokens-per-step expression, the structured channel's lines, and a workload's own regex.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChannelTailer, parseChannelLine } from '../../electron/core/metrics/channel.js';
import { evaluateExpression } from '../../electron/core/metrics/expression.js';
import { compileUserRegex, matchUserRegex, testUserRegex } from '../../electron/core/metrics/userRegex.js';
import { makeTempDir } from '../helpers/tempCore.js';

describe('evaluateExpression', () => {
  it('computes arithmetic of the run values', () => {
    expect(evaluateExpression('{batch} * {seq_len}', { batch: '8', seq_len: '256' })).toBe(2048);
    expect(evaluateExpression('({batch} + 2) * 3 / 2 - -1', { batch: '4' })).toBe(10);
  });

  it('refuses code, missing values and values that are not numbers', () => {
    expect(() => evaluateExpression('process.exit(1)', {})).toThrow(/expected a number/);
    expect(() => evaluateExpression('{batch} * 2', {})).toThrow(/has no value/);
    expect(() => evaluateExpression('{amp} * 2', { amp: 'on' })).toThrow(/not a number/);
    expect(() => evaluateExpression('1 / 0', {})).toThrow(/not a finite number/);
  });
});

describe('the structured channel', () => {
  const dir = makeTempDir();
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads steps, times relative to the run start, and nan written as a string', () => {
    const samples = parseChannelLine('{"t": 1000.5, "step": 3, "loss": "nan", "tokens": 2048, "lr": 0.001}', 1_000_000, 0);
    expect(samples.map((s) => [s.step, s.tMs, s.name])).toEqual([
      [3, 500, 'loss'],
      [3, 500, 'tokens'],
      [3, 500, 'lr'],
    ]);
    expect(Number.isNaN(samples[0]!.value)).toBe(true);
  });

  it('marks eval events and ignores lines that are not JSON objects', () => {
    expect(parseChannelLine('{"event": "eval", "step": 10, "loss": 1.5}', 0, 0)).toEqual([
      { step: 10, tMs: 0, name: 'eval_loss', value: 1.5, source: 'channel', kind: 'eval' },
    ]);
    expect(parseChannelLine('not json', 0, 0)).toEqual([]);
    expect(parseChannelLine('[1, 2]', 0, 0)).toEqual([]);
  });

  it('tails a growing file a whole line at a time', () => {
    const file = path.join(dir, 'metrics.jsonl');
    const tailer = new ChannelTailer(file, 0);
    expect(tailer.read(0)).toEqual([]);
    fs.writeFileSync(file, '{"step": 1, "loss": 2}\n{"step": 2, "lo');
    expect(tailer.read(0).map((s) => s.step)).toEqual([1]);
    fs.appendFileSync(file, 'ss": 1.5}\n');
    expect(tailer.read(0)).toMatchObject([{ step: 2, name: 'loss', value: 1.5 }]);
  });
});

describe('a workload regex', () => {
  it('turns named groups into metrics and step', () => {
    const compiled = compileUserRegex('ep (?<epoch>\\d+) it (?<step>\\d+) loss=(?<loss>\\S+) (?<tokens_per_sec>[\\d,]+) tok/s');
    expect(matchUserRegex(compiled, 'ep 2 it 340 loss=1.25e-1 41,250 tok/s')).toEqual({
      step: 340,
      values: { epoch: 2, loss: 0.125, tokens_per_sec: 41250 },
    });
  });

  it('is tested against a pasted log with a clear error for a bad pattern', () => {
    expect(testUserRegex('loss (?<loss', 'x').error).toMatch(/not a valid regular expression/);
    expect(testUserRegex('loss \\d+', 'x').error).toMatch(/name at least one group/);
    const result = testUserRegex('loss (?<loss>\\S+)', 'a\nloss 2.5\n\x1b[1mloss nan\x1b[0m\n');
    expect(result).toMatchObject({ error: null, groups: ['loss'], matchCount: 2 });
    expect(result.matches).toEqual([
      { line: 2, text: 'loss 2.5', values: { loss: 2.5 } },
      { line: 3, text: 'loss nan', values: { loss: 'nan' } },
    ]);
  });
});
