// Text out of the terminal for the clipboard: the selection, or with none, what the screen shows.
import type { Terminal } from '@xterm/xterm';

/** The rows in view, soft-wrapped rows joined back into their line, blank rows at the bottom left out. */
export function visibleScreenText(term: Terminal): string {
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let y = buffer.viewportY; y < buffer.viewportY + term.rows; y += 1) {
    const line = buffer.getLine(y);
    if (!line) break;
    const text = line.translateToString(true);
    if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

export function textToCopy(term: Terminal): string {
  return term.hasSelection() ? term.getSelection() : visibleScreenText(term);
}
