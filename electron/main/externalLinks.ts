// Which addresses the desktop app hands to the user's browser: https on a few documentation hosts, nothing else.

/**
 * Hosts the app's own help and hints link to (the NVIDIA driver and PyTorch documentation, the project's
 * GitHub). A page that managed to run script in the renderer must not be able to open anything else.
 */
export const EXTERNAL_LINK_HOSTS: readonly string[] = ['docs.nvidia.com', 'pytorch.org', 'github.com'];

/**
 * `mlflowOrigins`: the MLflow tracking servers this database publishes to (http or https, any port), whose UI the
 * Publish action and a pulled-back run link to; nothing else of theirs is trusted.
 */
export function isAllowedExternalUrl(address: string, mlflowOrigins: readonly string[] = []): boolean {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '') return false;
  if ((url.protocol === 'http:' || url.protocol === 'https:') && mlflowOrigins.includes(url.origin)) return true;
  if (url.protocol !== 'https:' || url.port !== '') return false;
  const host = url.hostname.toLowerCase();
  return EXTERNAL_LINK_HOSTS.some((allowed) => host === allowed || host.endsWith(`.${allowed}`));
}
