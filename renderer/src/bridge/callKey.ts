// Calls told apart by what they ask: the page's early calls are matched to the same calls made later.

/** One key per call: the transport answers a call the page already sent with its answer, once. */
export function callKey(method: string, input: unknown): string {
  return `${method} ${JSON.stringify(input)}`;
}
