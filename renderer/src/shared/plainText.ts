// Terminal output as plain lines in the browser: the engine's own cleaning (shared), and fragments cut off a fetched page.

export { stripAnsi, toPlainText } from '../../../electron/shared/ansi.js';

/** The end of a log fetched from its middle starts part-way through a line; that fragment would only mislead a test. */
export function dropPartialFirstLine(text: string): string {
  const newline = text.indexOf('\n');
  return newline < 0 ? '' : text.slice(newline + 1);
}
