// A tune row's knob line names every place the knob acted: the Lightning quick-start's autocast applied at its
// encoder's and its decoder's forward (main.py:28 and :29), and the row named only the first.
import { describe, expect, it } from 'vitest';
import { knobRecord } from '../../electron/core/tune/ladder.js';
import type { KnobOutcome } from '../../electron/shared/knobs.js';
import { recordedRun } from '../helpers/runRecord.js';

const applied = (line: number, what: string): KnobOutcome => ({ status: 'applied', what, reason: null, file: '/home/me/lt/main.py', line, via: null });

function runWith(id: number, outcomes: KnobOutcome[]) {
  return recordedRun(id, {
    summary: {
      steps: 10,
      throughput: { median: 100, iqr: null, unit: 'steps/s' },
      stepTimeMs: { median: 10 },
      finalLoss: 1,
      nanDetected: false,
      gpu: null,
      host: null,
    },
    knobs: { requested: { autocast: 'bf16' }, knobs: [{ name: 'autocast', value: 'bf16', state: 'applied', outcomes }] },
  });
}

describe('the knob line of a tune row', () => {
  it('names each place it applied once, over all the step’s runs', () => {
    const encoder = applied(28, "Sequential's forward under torch.autocast('cpu', dtype=torch.bfloat16)");
    const decoder = applied(29, "Sequential's forward under torch.autocast('cpu', dtype=torch.bfloat16)");
    const record = knobRecord([runWith(1, [encoder, decoder]), runWith(2, [encoder, decoder])], 'autocast');
    expect(record.state).toBe('applied');
    expect(record.text).toBe(
      "applied at main.py:28 (Sequential's forward under torch.autocast('cpu', dtype=torch.bfloat16)), main.py:29 (Sequential's forward under torch.autocast('cpu', dtype=torch.bfloat16))",
    );
  });

  it('names at most three and counts the rest', () => {
    const record = knobRecord(
      [
        runWith(
          1,
          [10, 20, 30, 40, 50].map((line) => applied(line, 'num_workers=4 (was 0)')),
        ),
      ],
      'autocast',
    );
    expect(record.text).toMatch(
      /^applied at main\.py:10 \(num_workers=4 \(was 0\)\), main\.py:20 .*, main\.py:30 \(num_workers=4 \(was 0\)\) and 2 more places$/u,
    );
  });

  it('keeps one place as it was, and a place-less knob with its detail', () => {
    expect(knobRecord([runWith(1, [applied(52, 'num_workers=4 (was 0)')])], 'autocast').text).toBe('applied at main.py:52 (num_workers=4 (was 0))');
    const global = { status: 'applied' as const, what: 'torch.set_num_threads(2)', reason: null, file: null, line: null, via: null };
    expect(knobRecord([runWith(1, [global])], 'autocast').text).toBe('applied (torch.set_num_threads(2))');
  });
});
