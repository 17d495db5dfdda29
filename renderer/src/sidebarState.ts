// Whether the runs sidebar is shown: folded away on a narrow window to give the main view its width, kept across reloads.
import { useState } from 'react';

const SIDEBAR_KEY = 'tuning-bench.sidebarOpen';

function readOpen(): boolean {
  try {
    return window.localStorage.getItem(SIDEBAR_KEY) !== 'false';
  } catch {
    // Storage switched off: shown, as on a first start.
    return true;
  }
}

export function useSidebarOpen(): [boolean, () => void] {
  const [open, setOpen] = useState(readOpen);
  const toggle = () => {
    setOpen(!open);
    try {
      window.localStorage.setItem(SIDEBAR_KEY, String(!open));
    } catch {
      // Not remembered, and nothing else lost.
    }
  };
  return [open, toggle];
}
