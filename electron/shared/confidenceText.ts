// An interval's confidence as a reader sees it: 95 %, 98.3 % (tune's looks share the 5 %; see compare/verdict.ts).

/** To the digit that tells it apart. */
export function confidenceText(confidence: number): string {
  return `${Number((confidence * 100).toPrecision(3))} %`;
}
