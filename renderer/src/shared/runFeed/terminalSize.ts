// Terminal geometry shared by the view and by the Run button, which must give the pty a size before any terminal exists.
import { LIMITS } from '../../../../electron/shared/api.js';

export const TERMINAL_FONT_FAMILY = "'JetBrains Mono', 'Fira Code', 'Cascadia Mono', 'DejaVu Sans Mono', 'Liberation Mono', ui-monospace, monospace";
export const TERMINAL_FONT_SIZE_PX = 13;
/** 80x24 is what programs assume when they cannot ask. */
const FALLBACK_SIZE = { cols: 80, rows: 24 } as const;
/** Room the run view's header and the terminal toolbar take, roughly; the terminal refits and resizes the pty once shown. */
const RUN_HEADER_ESTIMATE_PX = 240;

export interface TerminalSize {
  cols: number;
  rows: number;
}

export function clampTerminalSize(size: TerminalSize): TerminalSize {
  const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, Math.floor(n)));
  return {
    cols: clamp(size.cols, LIMITS.terminalCols.min, LIMITS.terminalCols.max),
    rows: clamp(size.rows, LIMITS.terminalRows.min, LIMITS.terminalRows.max),
  };
}

/** Guesses the size the terminal will get in `area`, so a program's first lines are laid out near the right width. */
export function estimateTerminalSize(area: HTMLElement | null): TerminalSize {
  if (!area) return FALLBACK_SIZE;
  const context = document.createElement('canvas').getContext('2d');
  if (!context) return FALLBACK_SIZE;
  context.font = `${TERMINAL_FONT_SIZE_PX}px ${TERMINAL_FONT_FAMILY}`;
  const cellWidth = context.measureText('W').width;
  // xterm's default lineHeight is 1.0, but glyph ascent+descent makes rows about 1.2 em tall.
  const cellHeight = TERMINAL_FONT_SIZE_PX * 1.2;
  const { width, height } = area.getBoundingClientRect();
  if (cellWidth <= 0 || width <= 0 || height <= 0) return FALLBACK_SIZE;
  return clampTerminalSize({ cols: width / cellWidth, rows: (height - RUN_HEADER_ESTIMATE_PX) / cellHeight });
}
