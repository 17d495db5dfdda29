// Cheap tests of how a line begins, for the parsers' `matches`: every line of a log meets them.

/** The index of the line's first character that is not a space or a tab. */
export function contentStart(line: string): number {
  let at = 0;
  while (at < line.length && (line.charCodeAt(at) === 0x20 || line.charCodeAt(at) === 0x09)) at++;
  return at;
}

/** Whether the line, after leading spaces and tabs, begins with one of the prefixes. */
export function beginsWith(line: string, ...prefixes: readonly string[]): boolean {
  const at = contentStart(line);
  for (const prefix of prefixes) if (line.startsWith(prefix, at)) return true;
  return false;
}
