// A sweep's request as the store keeps it: checked on the way in by the contract, and again on the way out.
import { z } from 'zod';
import { ApiFailure, gpuRunSettings, methods, sweepRequest, sweepSide } from '../../shared/api.js';

/** A `git=` sweep's revisions as resolved when it started (gitWorktrees.ts CheckoutPlan), kept so a resume runs the same code. */
const storedCheckout = z.object({ root: z.string(), sides: z.array(sweepSide), links: z.array(z.string()) });

/** GPU settings are stored as parsed (clock ranges as numbers), the contract's gpuRunSettings, not as typed text. */
const storedSweepRequest = sweepRequest.extend({ gpuSettings: gpuRunSettings.optional(), checkout: storedCheckout.optional() });

export type StoredSweepRequest = z.output<typeof storedSweepRequest>;
const storedFindBatchRequest = methods['sweeps.findBatch'].input;

export type FindBatchRequest = z.output<typeof storedFindBatchRequest>;

function describe(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`).join('; ');
}

/**
 * A stored sweep's request, parsed again: a file written by another version, or edited by hand, is
 * refused with what is wrong rather than run with fields that are not there.
 */
export function readSweepRequest(sweepId: number, stored: unknown): StoredSweepRequest {
  const parsed = storedSweepRequest.safeParse(stored);
  if (!parsed.success)
    throw new ApiFailure('invalid_input', `sweep ${sweepId}'s stored request cannot be read (${describe(parsed.error)}); start the sweep again`);
  return parsed.data;
}

export function readFindBatchRequest(sweepId: number, stored: unknown): FindBatchRequest {
  const parsed = storedFindBatchRequest.safeParse(stored);
  if (!parsed.success)
    throw new ApiFailure('invalid_input', `batch-size finder ${sweepId}'s stored request cannot be read (${describe(parsed.error)}); start it again`);
  // The finder runs a registered workload or a typed command: a request with neither names nothing to run.
  if (parsed.data.workloadId === undefined && parsed.data.command === undefined) {
    throw new ApiFailure(
      'invalid_input',
      `batch-size finder ${sweepId}'s stored request cannot be read (workloadId: needed where there is no command); start it again`,
    );
  }
  return parsed.data;
}
