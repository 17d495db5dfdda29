// How finely a step's time is known: the step times a summary reads are rounded numbers (whole-millisecond arrival
// times, step times printed to one decimal, rates printed to four digits). Repeats whose noise is below that grain
// read the same rounded value each time, which says nothing about how alike they are (see compare/verdict.ts).

/** The finest decimal grid looked for: a grid finer than this is below any change worth telling. */
const FINEST_DIGITS = 6;
/** Past this magnitude a double no longer tells a finer grid from rounding (2^50). */
const LARGEST_EXACT = 2 ** 50;

/**
 * The grid a number was written on: 1 for 63 or 1732712345678, 0.1 for 63.5, 0.01 for 63.21; at most 1 (a printed
 * 60 is read as whole units, not tens), and 10^-6 for a number with more digits than that.
 */
export function decimalGrid(value: number): number {
  const magnitude = Math.abs(value);
  for (let digits = 0; digits <= FINEST_DIGITS; digits++) {
    const scaled = magnitude * 10 ** digits;
    if (scaled >= LARGEST_EXACT) return 10 ** -digits;
    if (Math.abs(scaled - Math.round(scaled)) <= 1e-6 + scaled * 4 * Number.EPSILON) return 10 ** -digits;
  }
  return 10 ** -FINEST_DIGITS;
}

/** A step time's grain relative to it, where the step time is the time between two stamped lines `steps` steps apart. */
export function clockGrain(stepTimeMs: number, earlierMs: number, laterMs: number, steps: number): number {
  return Math.max(decimalGrid(earlierMs), decimalGrid(laterMs)) / steps / stepTimeMs;
}

/** A step time's grain relative to it, where the script printed a number it came from (a step time or a rate). */
export function printedGrain(printed: number): number {
  return decimalGrid(printed) / Math.abs(printed);
}
