// Reading a log file chosen for import: refused above the UI's limit, named after the file.
import { LIMITS, MAX_IMPORT_CHARS } from '../../../electron/shared/api.js';
import { formatBytes, shellQuote } from '../shared/format.js';

export type LogFileRead = { ok: true; text: string } | { ok: false; error: string };

/**
 * The file's text, or why not. Checked on its size before reading: a browser tab holding a multi-GiB log as one string
 * is what the limit is there to prevent (a UTF-8 file's byte count is never below its character count).
 */
export async function readLogFile(file: Pick<File, 'name' | 'size' | 'text'>): Promise<LogFileRead> {
  if (file.size > MAX_IMPORT_CHARS) {
    return {
      ok: false,
      error:
        `${file.name} (${formatBytes(file.size)}) is larger than the ${formatBytes(MAX_IMPORT_CHARS)} the app imports. ` +
        `Import it from a shell instead: tuning-bench import ${shellQuote(file.name)}`,
    };
  }
  try {
    return { ok: true, text: await file.text() };
  } catch (error) {
    return { ok: false, error: `Could not read ${file.name}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** A run name the API takes (letters, digits, spaces and . _ - +), from a file name; '' when nothing is left. */
export function runNameFromFileName(fileName: string): string {
  return fileName
    .replace(/[^\w.\- +]+/gu, '-')
    .replace(/^[-\s]+|[-\s]+$/gu, '')
    .slice(0, LIMITS.nameChars);
}
