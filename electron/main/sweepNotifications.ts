// A desktop notification when a sweep ends, and its progress on the taskbar icon while it runs.
import { BrowserWindow, Notification } from 'electron';
import type { Core } from '../core/createCore.js';
import type { Sweep } from '../shared/api.js';

const FINAL = new Set<Sweep['status']>(['succeeded', 'failed', 'cancelled']);

export function notifySweeps(core: Core): () => void {
  const announced = new Set<number>();
  const subscription = core.subscribe((event, payload) => {
    if (event !== 'sweeps.onDidChange') return;
    const sweep = payload;
    const window = BrowserWindow.getAllWindows()[0];
    if (sweep.status === 'running' && sweep.progress.total > 0) window?.setProgressBar(sweep.progress.done / sweep.progress.total);
    if (!FINAL.has(sweep.status) || announced.has(sweep.id)) return;
    announced.add(sweep.id);
    window?.setProgressBar(-1);
    if (!Notification.isSupported()) return;
    const best = sweep.result?.message ?? `${sweep.progress.done} of ${sweep.progress.total} runs`;
    new Notification({ title: `Sweep ${sweep.id} ${sweep.status}: ${sweep.name}`, body: sweep.error ?? best }).show();
  });
  return () => subscription.unsubscribe();
}
