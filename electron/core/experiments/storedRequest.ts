// A sweep's request as the store keeps it: checked on the way in by the contract, and again on the way out.
import { z } from 'zod';
import { ApiFailure, methods, sweepRequest, type SweepRequest } from '../../shared/api.js';

/** GPU settings are stored as parsed (clock ranges as numbers), not as the text a person typed. */
const clockRange = z.object({ minMHz: z.number().int().positive(), maxMHz: z.number().int().positive() });
const storedGpuSettings = z.object({
  persistence: z.boolean().optional(),
  lockClocks: clockRange.optional(),
  lockMemoryClocks: clockRange.optional(),
  powerLimitW: z.number().positive().optional(),
});

const storedSweepRequest = sweepRequest.extend({ gpuSettings: storedGpuSettings.optional() });
const storedFindBatchRequest = methods['sweeps.findBatch'].input;

export type FindBatchRequest = z.output<typeof storedFindBatchRequest>;

function describe(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`).join('; ');
}

/**
 * A stored sweep's request, parsed again: a file written by another version, or edited by hand, is
 * refused with what is wrong rather than run with fields that are not there.
 */
export function readSweepRequest(sweepId: number, stored: unknown): SweepRequest {
  const parsed = storedSweepRequest.safeParse(stored);
  if (!parsed.success) throw new ApiFailure('invalid_input', `sweep ${sweepId}'s stored request cannot be read (${describe(parsed.error)}); start the sweep again`);
  return parsed.data;
}

export function readFindBatchRequest(sweepId: number, stored: unknown): FindBatchRequest {
  const parsed = storedFindBatchRequest.safeParse(stored);
  if (!parsed.success) throw new ApiFailure('invalid_input', `batch-size finder ${sweepId}'s stored request cannot be read (${describe(parsed.error)}); start it again`);
  return parsed.data;
}
