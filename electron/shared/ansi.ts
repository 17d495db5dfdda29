// Removes terminal escape sequences, so text can be searched and exported as plain lines (engine and renderer alike).

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), other two-byte escapes, and C1 CSI (0x9B).
const ANSI_PATTERN =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/gu;

export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, '');
}

/**
 * Terminal output as plain lines: escape codes removed and each `\r` redraw collapsed to what a
 * terminal would finally show on that line (a progress bar keeps its last state).
 */
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
