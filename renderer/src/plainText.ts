// Terminal output as plain lines, in the browser: escape codes removed, each `\r` redraw collapsed to its last state.

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), other two-byte escapes, and C1 CSI (0x9B): the engine's own set
// (core/runner/ansi.ts), repeated here because the renderer imports nothing of the engine.
const ANSI_PATTERN =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/gu;

export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, '');
}

/** What a terminal would finally show on each line: a progress bar keeps its last state, as in the saved plain log. */
export function toPlainText(text: string): string {
  return stripAnsi(text)
    .split('\n')
    .map((line) => {
      const withoutTrailingCr = line.endsWith('\r') ? line.slice(0, -1) : line;
      const parts = withoutTrailingCr.split('\r');
      for (let i = parts.length - 1; i >= 0; i--) if (parts[i] !== '') return parts[i];
      return '';
    })
    .join('\n');
}

/** The end of a log fetched from its middle starts part-way through a line; that fragment would only mislead a test. */
export function dropPartialFirstLine(text: string): string {
  const newline = text.indexOf('\n');
  return newline < 0 ? '' : text.slice(newline + 1);
}
