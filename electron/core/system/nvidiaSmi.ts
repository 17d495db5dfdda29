// Runs nvidia-smi once and collects what it printed: the one way the engine asks the driver a question.
import { execFile } from 'node:child_process';

/** `--help-query-gpu`, `-q -x` and the like answer in well under this. */
const QUERY_TIMEOUT_MS = 10_000;
/** The most one answer may hold (as the sampler had it); `-q -x`, the longest answer asked for, needs room on many GPUs. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/** The exit code (1 when it could not run or timed out) and stdout then stderr; never throws. */
export function runNvidiaSmi(binary: string, args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(binary, args, { env, timeout: QUERY_TIMEOUT_MS, maxBuffer: MAX_OUTPUT_BYTES }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}
