// The window's size and position, remembered between sessions (kept only if it is still on a screen).
import fs from 'node:fs';
import path from 'node:path';
import { app, screen, type BrowserWindow, type Rectangle } from 'electron';

interface WindowState {
  bounds: Rectangle;
  maximized: boolean;
}

const DEFAULT_BOUNDS = { width: 1400, height: 900 };

function stateFile(): string {
  return path.join(app.getPath('userData'), 'window-state.json');
}

/** The saved bounds if they still overlap a display (a monitor may have been unplugged), else the default size. */
export function loadWindowState(): { bounds: Partial<Rectangle>; maximized: boolean } {
  try {
    const saved = JSON.parse(fs.readFileSync(stateFile(), 'utf8')) as WindowState;
    const { bounds } = saved;
    const area = screen.getDisplayMatching(bounds).workArea;
    const visible = bounds.x < area.x + area.width && bounds.x + bounds.width > area.x && bounds.y < area.y + area.height && bounds.y + bounds.height > area.y;
    if (visible && bounds.width >= 400 && bounds.height >= 300) return { bounds, maximized: saved.maximized === true };
  } catch {
    // No saved state yet, or a file from elsewhere: the default size.
  }
  return { bounds: DEFAULT_BOUNDS, maximized: false };
}

/** Saves on close (the normal bounds, so un-maximizing later returns there). */
export function rememberWindowState(window: BrowserWindow): void {
  window.on('close', () => {
    const state: WindowState = { bounds: window.getNormalBounds(), maximized: window.isMaximized() };
    try {
      fs.mkdirSync(path.dirname(stateFile()), { recursive: true });
      fs.writeFileSync(stateFile(), JSON.stringify(state));
    } catch {
      // Not worth bothering the person about on the way out.
    }
  });
}
