// The system's light or dark scheme, which the charts and the terminal follow as it changes.

export const darkScheme = () => window.matchMedia('(prefers-color-scheme: dark)');

/** Calls back each time the system switches between light and dark; returns what stops it. */
export function onSchemeChange(listener: () => void): () => void {
  const query = darkScheme();
  query.addEventListener('change', listener);
  return () => query.removeEventListener('change', listener);
}
