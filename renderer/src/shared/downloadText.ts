// Saves text the page already holds (an export the engine rendered) as a file: a Blob behind an object URL, clicked
// through a hidden link. A browser downloads it; Electron's sandboxed page gets its default save dialog.
import { downloadUrl } from './download.js';

/** Long enough for the browser to have started reading the Blob before its URL is let go. */
const REVOKE_AFTER_MS = 60_000;

export function downloadText(content: string, fileName: string, mimeType: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: `${mimeType};charset=utf-8` }));
  downloadUrl(url, fileName);
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}
