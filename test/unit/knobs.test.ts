// Knob values as people type them (--knob, --vary knob.NAME, the API), and the Python side's results folded by knob.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { knobsEnvironment, MAX_RESULTS_BYTES, readKnobResults } from '../../electron/core/runner/knobResults.js';
import { checkKnob, knobLines, knobSettings, knobsForPython, knobsInForce, knobsOfConfig, parseKnobAssignment } from '../../electron/shared/knobs.js';
import { parseVary } from '../../electron/shared/variables.js';
import { makeTempDir } from '../helpers/tempCore.js';

const dir = makeTempDir('tb-knobs-unit-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('knob values', () => {
  it('makes values canonical and refuses an unknown knob or a bad value, naming the valid ones', () => {
    expect(parseKnobAssignment('workers=4')).toEqual({ ok: true, name: 'workers', value: '4' });
    expect(parseKnobAssignment('tf32')).toEqual({ ok: true, name: 'tf32', value: 'on' });
    expect(parseKnobAssignment('compile=false')).toEqual({ ok: true, name: 'compile', value: 'off' });
    expect(parseKnobAssignment('autocast=OFF')).toEqual({ ok: true, name: 'autocast', value: 'off' });
    expect(parseKnobAssignment('worker=4')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^no knob "worker": the knobs are workers=1-64\|off, pinMemory=on\|off, .*threads=1-1024\|off$/u),
    });
    expect(parseKnobAssignment('workers')).toEqual({ ok: false, error: 'workers needs a value: workers=1-64|off' });
    expect(checkKnob('workers', '0')).toEqual({ ok: false, error: 'workers: "0" is not one of its values (1-64|off)' });
    expect(checkKnob('workers', '4.5')).toMatchObject({ ok: false });
    expect(checkKnob('autocast', 'fp32')).toEqual({ ok: false, error: 'autocast: "fp32" is not one of its values (bf16|fp16|off)' });
    expect(checkKnob('matmulPrecision', 'highest')).toMatchObject({ ok: false });
  });

  it('takes knobs through the API schema checked, and from a config as knob.NAME', () => {
    expect(knobSettings.parse({ workers: '04', tf32: 'yes', autocast: 'off' })).toEqual({ workers: '4', tf32: 'on', autocast: 'off' });
    const refused = knobSettings.safeParse({ autocast: 'fp8' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe('autocast: "fp8" is not one of its values (bf16|fp16|off)');
    expect(knobsOfConfig({ batch: '16', 'knob.autocast': 'bf16', git: 'main' })).toEqual({ autocast: 'bf16' });
    expect(() => knobsOfConfig({ 'knob.autocast': 'fp8' })).toThrow('knob.autocast: "fp8" is not one of its values');
    // What Python gets: off left out, counts as numbers, switches as true.
    expect(knobsForPython({ workers: '4', tf32: 'on', autocast: 'off', matmulPrecision: 'high' })).toEqual({ workers: 4, tf32: true, matmulPrecision: 'high' });
    expect(knobsEnvironment('/tmp/k.jsonl', { autocast: 'off' })).toEqual({});
  });

  it('lets a sweep vary a knob like any variable', () => {
    expect(parseVary('knob.autocast=off,bf16')).toEqual({ name: 'knob.autocast', values: ['off', 'bf16'] });
    expect(parseVary('knob.=off')).toMatchObject({ error: expect.any(String) });
  });
});

describe('the results file read back', () => {
  const line = (fields: Record<string, unknown>) => `${JSON.stringify({ t: 1, pid: 1, what: null, reason: null, file: null, line: null, ...fields })}\n`;

  it('folds outcomes by knob, says each once, and lets the state say what holds', () => {
    const file = path.join(dir, 'fold.jsonl');
    const site = { file: '/home/me/train.py', line: 52 };
    fs.writeFileSync(
      file,
      line({ event: 'torch', torch: '2.4.0', cuda: true }) +
        line({ knob: 'workers', status: 'applied', what: 'num_workers=4 (was 0)', ...site }) +
        // The same outcome from a loader made again each epoch, and from another process: said once.
        line({ knob: 'workers', status: 'applied', what: 'num_workers=4 (was 0)', ...site, pid: 2 }) +
        line({ knob: 'workers', status: 'skipped', reason: 'the script sets num_workers=2 itself: left alone', file: '/home/me/train.py', line: 80 }) +
        line({ knob: 'threads', status: 'applied', what: 'torch.set_num_threads(8)', file: '/home/me/train.py', line: 3 }) +
        line({
          knob: 'threads',
          status: 'overridden',
          reason: 'the script sets torch.set_num_threads(1) itself, after the knob: its choice stands',
          file: '/home/me/train.py',
          line: 9,
        }) +
        // One process never reached the autocast knob, another applied it: applied.
        line({ knob: 'autocast', status: 'unused', reason: 'the script called no torch.nn.Module', pid: 3 }) +
        line({ knob: 'autocast', status: 'applied', what: 'forward under autocast', file: '/home/me/train.py', line: 88 }) +
        line({ knob: 'compile', status: 'applied', what: 'compiled', file: '/home/me/train.py', line: 88, warmupUntil: 1700000000.5 }) +
        // The model loaded again for a test pass at the end, compiled on its first call: no warm-up of the training's.
        line({ knob: 'compile', status: 'applied', what: 'compiled again', file: '/home/me/train.py', line: 120, warmupUntil: 1700000060.25 }) +
        // A line a kill cut short is not read.
        '{"knob": "tf32", "status": "appl',
    );
    const knobs = readKnobResults(file, { workers: '4', threads: '8', autocast: 'bf16', compile: 'on', tf32: 'on', channelsLast: 'off' });
    expect(knobs.torch).toBe('2.4.0');
    expect(knobs.cuda).toBe(true);
    expect(knobs.warmupUntilMs).toBe(1700000000500);
    const byName = Object.fromEntries(knobs.knobs.map((k) => [k.name, k]));
    expect(byName.workers!.state).toBe('applied');
    expect(byName.workers!.outcomes).toHaveLength(2);
    expect(byName.threads!.state).toBe('overridden');
    expect(byName.autocast).toMatchObject({ state: 'applied', outcomes: [{ status: 'applied' }] });
    expect(byName.tf32!.state).toBe('unknown');
    expect(byName.channelsLast!.state).toBe('unused');
    expect(knobsInForce(knobs)).toEqual(['workers=4', 'autocast=bf16', 'compile=on']);
    const lines = knobLines(knobs);
    expect(lines[0]).toBe(
      'workers=4: applied at train.py:52 (num_workers=4 (was 0)); skipped at train.py:80 (the script sets num_workers=2 itself: left alone)',
    );
    expect(lines).toContain('tf32=on: unknown (no Python process reported on it)');
    expect(lines).toContain('channelsLast=off: off');
  });

  it('says so when no Python process reported, and reads a results file of any size only up to its bound', () => {
    const missing = readKnobResults(path.join(dir, 'none.jsonl'), { workers: '4' });
    expect(missing.notes).toEqual(['no Python process of this run reported on the knobs: the command may not be Python, or it ended before Python started']);
    expect(missing.knobs[0]!.state).toBe('unknown');

    const big = path.join(dir, 'big.jsonl');
    const one = line({ knob: 'workers', status: 'applied', what: 'num_workers=4 (was 0)', file: '/t.py', line: 1 });
    fs.writeFileSync(big, one.repeat(Math.ceil((MAX_RESULTS_BYTES * 1.25) / one.length)));
    const read = readKnobResults(big, { workers: '4' });
    expect(read.knobs[0]).toMatchObject({ state: 'applied', outcomes: [{ what: 'num_workers=4 (was 0)' }] });
    expect(read.notes).toEqual(["the knobs' results file is larger than 4 MiB: only its start was read"]);
  });
});
