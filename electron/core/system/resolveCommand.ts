// Finds the executable a command names, so "not found" is a clear message instead of a shell's exit 127.
import fs from 'node:fs';
import path from 'node:path';

function isExecutableFile(file: string): boolean {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path of `command` as a shell would find it in `cwd` with `PATH`, or null. */
export function resolveCommand(command: string, cwd: string, pathVariable: string | undefined): string | null {
  if (command.includes('/')) {
    const candidate = path.resolve(cwd, command);
    return isExecutableFile(candidate) ? candidate : null;
  }
  for (const dir of (pathVariable ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.resolve(cwd, dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}
