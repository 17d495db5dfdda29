// The tests that train with real PyTorch (CPU is enough): which Python runs them, and what happens where torch is
// missing. They fail with what to install; they skip only when asked to (TUNING_BENCH_SKIP_TORCH_TESTS=1), and say so.
import { spawnSync } from 'node:child_process';

/** Debian's python3-torch lives in the system Python, which need not be the first python3 on PATH. */
export const TORCH_PYTHON = process.env.TUNING_BENCH_TORCH_PYTHON || '/usr/bin/python3';
const OPT_OUT = 'TUNING_BENCH_SKIP_TORCH_TESTS';

function probeTorch(): string | null {
  const probe = spawnSync(TORCH_PYTHON, ['-c', 'import torch'], { encoding: 'utf8', timeout: 120_000 });
  if (probe.error) return `${TORCH_PYTHON} cannot be run (${probe.error.message})`;
  if (probe.status !== 0) return `${TORCH_PYTHON} cannot import torch (${probe.stderr.trim().split('\n').at(-1) ?? `exit ${probe.status}`})`;
  return null;
}

/** Why this machine cannot run the PyTorch tests, or null when it can. */
export const torchMissing: string | null = probeTorch();

/** True only where torch is missing and the user chose to skip these tests; says so for the file named. */
export function skipTorchTests(file: string): boolean {
  if (torchMissing === null || process.env[OPT_OUT] !== '1') return false;
  console.warn(`${file}: SKIPPED on purpose (${OPT_OUT}=1): ${torchMissing}`);
  return true;
}

/** Fails the test that calls it, with what to install, where torch is missing and the tests were not skipped. */
export function assertTorch(): void {
  if (torchMissing === null) return;
  throw new Error(
    `${torchMissing}. These tests train with real PyTorch: install it (Debian/Ubuntu: sudo apt-get install python3-torch, ` +
      `about 185 MB), or name a Python that has it in TUNING_BENCH_TORCH_PYTHON, or set ${OPT_OUT}=1 to skip them.`,
  );
}
