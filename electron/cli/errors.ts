// Errors the CLI reports as "bad arguments" (exit status 2, per the contract).

export class UsageError extends Error {
  override name = 'UsageError';
}
