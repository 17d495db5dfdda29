// PyTorch Lightning's epoch bars: `Epoch 0:  17%|█▋ | 3/18 [00:14<01:13, 4.87s/it, loss=10, v_num=1]`.
import type { LineParser } from './types.js';
import { isNotTrainingBar, postfixValues, rateName, readBar } from './tqdm.js';

/** Lightning names its training bar `Epoch N` (0-based), with nothing after the number. */
const EPOCH_DESCRIPTION = /^Epoch (\d+)$/;
const EPOCH_START = /^\s*Epoch \d+:/;

/**
 * Lightning's bar counts batches within an epoch, validation batches included in its total, so
 * the step is `epoch × total + n`: it grows through the run, though it is not an optimizer step
 * count. Lightning's validation bars (`Validation DataLoader 0: ...`) are left to the tqdm parser,
 * which reads them as evaluation.
 */
export function createLightningParser(): LineParser {
  return {
    name: 'lightning',
    // It keeps no state.
    keepsStateOnNull: true,
    keepsStateOnRecord: true,
    readsBars: true,
    matches: (line) => EPOCH_START.test(line) && readBar(line) !== null,
    parse(line) {
      const bar = readBar(line);
      if (bar === null || isNotTrainingBar(bar)) return null;
      const epochMatch = EPOCH_DESCRIPTION.exec(bar.description);
      if (epochMatch === null) return null;
      const epoch = Number(epochMatch[1]);
      const values: Record<string, number> = { epoch, batch: bar.n };
      if (bar.total !== null) values.batches = bar.total;
      const rate = rateName(bar.unit);
      if (rate !== null && bar.perSecond !== null) values[rate] = bar.perSecond;
      values.elapsed_s = bar.elapsedS;
      if (bar.remainingS !== null) values.remaining_s = bar.remainingS;
      postfixValues(bar, values);
      const step = bar.total === null ? Math.round(bar.n) : Math.round(epoch * bar.total + bar.n);
      return { step, kind: 'progress', values };
    },
  };
}
