// Saves a run's whole log: Electron asks where and writes it; headless mode hands the browser a download.
import type { ApiClient, LogFormat } from '../../electron/shared/api.js';

/** What to tell the person, or null when they cancelled Electron's dialog. */
export async function saveRunLog(api: ApiClient, runId: number, format: LogFormat): Promise<string | null> {
  const { path, downloadUrl } = await api['runs.saveLog']({ id: runId, format });
  if (path !== null) return `Saved to ${path}`;
  if (downloadUrl === null) return null;
  // A same-origin link the cookie authorises; `download` makes it a file, named by the server's Content-Disposition.
  const link = document.createElement('a');
  link.href = downloadUrl;
  link.download = '';
  link.rel = 'noopener';
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  return 'Download started';
}
