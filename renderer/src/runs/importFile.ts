// A log file chosen for import, sent to the engine in pieces (never held whole): refused above the import limit, named after the file.
import { IMPORT_PIECE_CHARS, LIMITS, MAX_IMPORT_FILE_BYTES, type ApiClient, type Run } from '../../../electron/shared/api.js';
import { formatBytes, shellQuote } from '../shared/format.js';

/** `--max-bytes` in whole GiB, the unit a person types. */
const GIB = 1024 ** 3;

/** Why a file cannot be imported from here, or null: checked on its size before a byte is read. */
export function logFileProblem(file: Pick<File, 'name' | 'size'>): string | null {
  if (file.size <= MAX_IMPORT_FILE_BYTES) return null;
  return (
    `${file.name} (${formatBytes(file.size)}) is larger than the ${formatBytes(MAX_IMPORT_FILE_BYTES)} an import takes. ` +
    `If it really is a training log, import it from a shell: tuning-bench import ${shellQuote(file.name)} --max-bytes ${Math.ceil(file.size / GIB)}G`
  );
}

export interface ImportProgress {
  sentBytes: number;
  totalBytes: number;
}

/**
 * Sends a file in pieces of IMPORT_PIECE_CHARS bytes, each decoded as UTF-8 without splitting a character, each
 * answered before the next: memory holds one piece, and `onProgress` moves with every answer. `signal` cancels it,
 * and the engine removes what it had stored.
 */
export async function importFileInPieces(
  api: Pick<ApiClient, 'runs.importBegin' | 'runs.importAppend' | 'runs.importFinish' | 'runs.importCancel'>,
  file: Pick<File, 'size' | 'slice'>,
  name: string | undefined,
  onProgress: (progress: ImportProgress) => void,
  signal: AbortSignal,
): Promise<Run> {
  const { importId } = await api['runs.importBegin']({ ...(name ? { name } : {}), totalBytes: file.size });
  const decoder = new TextDecoder('utf-8');
  try {
    for (let offset = 0; offset < file.size; offset += IMPORT_PIECE_CHARS) {
      if (signal.aborted) throw new Error('the import was cancelled; nothing was kept');
      const bytes = await file.slice(offset, offset + IMPORT_PIECE_CHARS).arrayBuffer();
      const text = decoder.decode(bytes, { stream: offset + IMPORT_PIECE_CHARS < file.size });
      if (text !== '') await api['runs.importAppend']({ importId, text });
      onProgress({ sentBytes: Math.min(file.size, offset + bytes.byteLength), totalBytes: file.size });
    }
    const tail = decoder.decode();
    if (tail !== '') await api['runs.importAppend']({ importId, text: tail });
    return await api['runs.importFinish']({ importId });
  } catch (error) {
    // Whatever went wrong here, the engine's half-made run goes (a failed finish has removed it already).
    await api['runs.importCancel']({ importId }).catch(() => undefined);
    throw error;
  }
}

/** A run name the API takes (letters, digits, spaces and . _ - +), from a file name; '' when nothing is left. */
export function runNameFromFileName(fileName: string): string {
  return fileName
    .replace(/[^\w.\- +]+/gu, '-')
    .replace(/^[-\s]+|[-\s]+$/gu, '')
    .slice(0, LIMITS.nameChars);
}
