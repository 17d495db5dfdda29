// Hands the browser a file to save: a same-origin or data: URL, clicked through a hidden link.

/** `fileName` '' lets the server's Content-Disposition name the file. */
export function downloadUrl(href: string, fileName = ''): void {
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  link.rel = 'noopener';
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
}
