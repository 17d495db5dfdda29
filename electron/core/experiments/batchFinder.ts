// The batch-size finder: doubles the batch until a short run runs out of memory, then bisects between
// the last that fit and the first that did not, to the largest batch that fits.

export type ProbeOutcome = 'fits' | 'oom';

export interface BatchSearchResult {
  largestFit: number | null;
  firstFailure: number | null;
  probes: Array<{ batch: number; outcome: ProbeOutcome }>;
}

/** Past a million samples per step something else is wrong; the doubling stops there. */
export const MAX_BATCH = 1 << 20;

/**
 * `probe(batch)` runs a short training at that batch; it throws when the run fails for another reason
 * than memory (the finder cannot tell anything from it), and the search stops there.
 */
export async function findLargestBatch(
  start: number,
  probe: (batch: number) => Promise<ProbeOutcome | 'cancelled'>,
  maxBatch = MAX_BATCH,
): Promise<BatchSearchResult | null> {
  const probes: BatchSearchResult['probes'] = [];
  let fit: number | null = null;
  let failure: number | null = null;
  const tryBatch = async (batch: number): Promise<ProbeOutcome | null> => {
    const outcome = await probe(batch);
    if (outcome === 'cancelled') return null;
    probes.push({ batch, outcome });
    return outcome;
  };

  const largest = Math.min(maxBatch, MAX_BATCH);
  for (let batch = start; batch <= largest; batch = batch * 2 > largest && batch < largest ? largest : batch * 2) {
    const outcome = await tryBatch(batch);
    if (outcome === null) return null;
    if (outcome === 'oom') {
      failure = batch;
      break;
    }
    fit = batch;
  }
  if (failure === null) return { largestFit: fit, firstFailure: null, probes };
  let low = fit ?? 0;
  while (failure - low > 1) {
    const mid = Math.floor((low + failure) / 2);
    const outcome = await tryBatch(mid);
    if (outcome === null) return null;
    if (outcome === 'fits') low = mid;
    else failure = mid;
  }
  return { largestFit: low === 0 ? null : low, firstFailure: failure, probes };
}
