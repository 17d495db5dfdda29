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

/** The interpreter a script's extension names, for the fix an unexecutable script is given. */
const INTERPRETERS: Readonly<Record<string, string>> = {
  '.py': 'python3',
  '.sh': 'bash',
  '.bash': 'bash',
  '.js': 'node',
  '.mjs': 'node',
  '.cjs': 'node',
  '.rb': 'ruby',
  '.pl': 'perl',
  '.R': 'Rscript',
  '.jl': 'julia',
};

/**
 * Why a command given as a path (`./train.py`, `/opt/x/train`) cannot be started, with what to do
 * instead: a folder, or a file without the execute bit. Null when it can be started, when it names a
 * program on PATH, or when it is not there at all (that is a run that ends `not_found`, as for a PATH name).
 */
export function unrunnablePath(command: string, cwd: string): string | null {
  if (!command.includes('/')) return null;
  const file = path.resolve(cwd, command);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return null;
  }
  if (stat.isDirectory())
    return `${command} is a folder, not a program (in ${cwd}): give the script or program inside it, e.g. ${path.join(command, 'train.py')}`;
  if (isExecutableFile(file)) return null;
  const interpreter = INTERPRETERS[path.extname(file)] ?? 'sh';
  return (
    `${command} is not executable (it has no execute permission, in ${cwd}): ` +
    `run it with its interpreter, \`${interpreter} ${command}\`, or make it executable with \`chmod +x ${command}\``
  );
}
