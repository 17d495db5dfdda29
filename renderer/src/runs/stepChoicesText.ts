// Warm-up and left-out steps as typed in the run view: "auto" or a number, and a list like "40, 41, 90-95".

/** Most steps one list may name: the contract's bound (electron/shared/api/common.ts stepChoices). */
const MAX_STEPS = 10_000;

export function parseStepChoices(
  warmup: string,
  exclude: string,
): { ok: true; value: { warmupSteps: number | null; excludeSteps: number[] } } | { ok: false; error: string } {
  const w = warmup.trim();
  if (w !== '' && w !== 'auto' && !/^\d+$/u.test(w)) return { ok: false, error: 'Warm-up steps: a whole number, or empty for the automatic rule' };
  const steps = new Set<number>();
  for (const part of exclude
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const range = /^(\d+)(?:\s*-\s*(\d+))?$/u.exec(part);
    if (!range) return { ok: false, error: `Leave out steps: "${part}" is neither a step nor a range like 90-95` };
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    if (to < from) return { ok: false, error: `Leave out steps: the range ${part} runs backwards` };
    if (steps.size + to - from >= MAX_STEPS) return { ok: false, error: `Leave out steps: at most ${MAX_STEPS} steps` };
    for (let step = from; step <= to; step++) steps.add(step);
  }
  return { ok: true, value: { warmupSteps: w === '' || w === 'auto' ? null : Number(w), excludeSteps: [...steps].sort((a, b) => a - b) } };
}
