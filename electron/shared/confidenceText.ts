// An interval's confidence as a reader sees it: 95 %, 98.3 % (tune's looks share the 5 %; see compare/verdict.ts).

/** The confidence of every interval a verdict rests on (compare/verdict.ts); tune shares its 5 % between looks. */
export const CONFIDENCE = 0.95;

/** To the digit that tells it apart. */
export function confidenceText(confidence: number): string {
  return `${Number((confidence * 100).toPrecision(3))} %`;
}
