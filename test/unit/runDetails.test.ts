// `show`'s lines for a run's loss: a value a script logged as a float32's `.item()` (the structured channel, a
// Lightning script's logged values) is printed as a log would print it, not with its 17 digits.
import { describe, expect, it } from 'vitest';
import { formatRunDetails } from '../../electron/cli/format.js';
import { recordedRun } from '../helpers/runRecord.js';

function lightningRun(finalLoss: number, bestLoss: number, evalLoss: number) {
  return recordedRun(71, {
    command: ['python', 'backbone_image_classifier.py', '--trainer.max_epochs=1'],
    summary: {
      steps: 1719,
      throughput: { median: 206, iqr: 65.2, unit: 'steps/s', blocks: [] },
      stepTimeMs: { median: 4.23 },
      finalLoss,
      bestLoss,
      evalLoss,
      lossFell: true,
      nanDetected: false,
      gpu: null,
      host: null,
    },
  });
}

describe("a run's loss in `show`", () => {
  it('has seven significant digits where the script gave a float32 with seventeen', () => {
    const text = formatRunDetails(lightningRun(0.3620281517505646, 0.22124922275543213, 0.4749516248703003));
    expect(text).toContain('  loss      final 0.3620282, best 0.2212492, falling\n');
    expect(text).toContain('  eval loss 0.4749516\n');
  });

  it('is the value the log printed where it printed fewer', () => {
    const text = formatRunDetails(lightningRun(2.302345, 1.5, 339.0139));
    expect(text).toContain('  loss      final 2.302345, best 1.5, falling\n');
    expect(text).toContain('  eval loss 339.0139\n');
  });
});
