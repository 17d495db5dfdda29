// Which addresses the desktop app hands to the user's browser: https on a few documentation hosts, nothing else.

/**
 * Hosts the app's own help and hints link to (the NVIDIA driver and PyTorch documentation, the project's
 * GitHub). A page that managed to run script in the renderer must not be able to open anything else.
 */
export const EXTERNAL_LINK_HOSTS: readonly string[] = ['docs.nvidia.com', 'pytorch.org', 'github.com'];

export function isAllowedExternalUrl(address: string): boolean {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.port !== '') return false;
  const host = url.hostname.toLowerCase();
  return EXTERNAL_LINK_HOSTS.some((allowed) => host === allowed || host.endsWith(`.${allowed}`));
}
