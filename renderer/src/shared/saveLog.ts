// Saves a run's whole log: Electron asks where and writes it; headless mode hands the browser a download.
import type { ApiClient, LogFormat } from '../../../electron/shared/api.js';
import { TOKEN_PARAM } from '../../../electron/shared/protocol.js';
import { downloadUrl } from './download.js';

/** What to tell the person, or null when they cancelled Electron's dialog. */
export async function saveRunLog(api: ApiClient, runId: number, format: LogFormat): Promise<string | null> {
  const { path, downloadUrl: url } = await api['runs.saveLog']({ id: runId, format });
  if (path !== null) return `Saved to ${path}`;
  if (url === null) return null;
  // A same-origin link that carries the page's token (no cookie does); `download` makes it a file, named by the
  // server's Content-Disposition.
  const token = new URLSearchParams(window.location.search).get(TOKEN_PARAM);
  downloadUrl(token ? `${url}&${TOKEN_PARAM}=${encodeURIComponent(token)}` : url);
  return 'Download started';
}
