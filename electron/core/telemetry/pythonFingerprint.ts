// Python's and PyTorch's versions for a run, asked once per interpreter and kept on disk: `import torch` costs seconds.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { systemClock, type Clock } from '../clock.js';

/** Importing torch takes a second or two (far more on a cold disk); a hung interpreter is given up on. */
const PYTHON_TIMEOUT_MS = 30_000;
/** An answer without torch is asked again after this long: `pip install torch` changes no file we can watch. */
const NO_TORCH_RECHECK_MS = 24 * 3600 * 1000;
/** Entries kept in the cache file; more interpreters than this on one machine is unusual. */
const MAX_ENTRIES = 64;

export type PythonFacts = Record<string, unknown>;

interface CacheEntry {
  /** The interpreter's modification time when asked: a new Python is a new answer. */
  interpreterMtimeMs: number;
  /** torch's version.py and its mtime when torch imported: an upgrade rewrites it. */
  torchVersionFile: string | null;
  torchVersionMtimeMs: number | null;
  askedAtMs: number;
  facts: PythonFacts;
}

const SCRIPT = [
  'import json, os, platform, sys',
  'facts = {"pythonVersion": platform.python_version(), "pythonExecutable": sys.executable}',
  'version_file = None',
  'try:',
  '    import torch',
  '    facts.update(torchVersion=torch.__version__, torchCuda=torch.version.cuda,',
  '                 cudnn=(torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None))',
  '    version_file = os.path.join(os.path.dirname(torch.__file__), "version.py")',
  'except Exception as error:',
  '    facts.update(torchVersion=None, torchError=type(error).__name__)',
  'print(json.dumps({"facts": facts, "torchVersionFile": version_file}))',
].join('\n');

function mtimeMs(file: string | null): number | null {
  if (file === null) return null;
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * Where `program` runs from: a path as given, else the first match on PATH; absolute, and never through its links: a
 * virtual environment's bin/python is a link to the system's Python, which run by its own path finds no venv (the
 * venv's pyvenv.cfg lies beside the link), so it would answer with the system's torch.
 */
function resolveInterpreter(program: string, cwd: string, pathVariable: string | undefined): string | null {
  const candidates = program.includes('/')
    ? [path.resolve(cwd, program)]
    : (pathVariable ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.resolve(cwd, dir, program));
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not this one.
    }
  }
  return null;
}

/**
 * Answers for Python commands from a cache file, validated by the interpreter's and torch's
 * modification times; a miss asks the interpreter at the lowest CPU priority, so starting it while
 * a run trains costs that run as little as possible.
 */
export class PythonFingerprints {
  private readonly inFlight = new Map<string, Promise<PythonFacts | null>>();

  constructor(
    private readonly cacheFile: string,
    /** `askedAtMs` is stored in the cache file, so it is a wall reading that outlives the process. */
    private readonly clock: Clock = systemClock,
  ) {}

  /** Null for a command that is not Python (or an interpreter not found); never throws. */
  ask(command: readonly string[], cwd: string, env: Record<string, string>): Promise<PythonFacts | null> {
    const program = command[0] ?? '';
    if (!/^python[\d.]*$/u.test(path.basename(program))) return Promise.resolve(null);
    const interpreter = resolveInterpreter(program, cwd, env.PATH);
    if (interpreter === null) return Promise.resolve(null);
    const key = `${interpreter}\0${env.PYTHONPATH ?? ''}\0${env.VIRTUAL_ENV ?? ''}`;
    const cached = this.read()[key];
    if (cached && this.stillValid(cached, interpreter)) return Promise.resolve(cached.facts);
    let answer = this.inFlight.get(key);
    if (!answer) {
      answer = this.query(interpreter, cwd, env).then((result) => {
        this.inFlight.delete(key);
        if (result) this.write(key, { ...result, interpreterMtimeMs: mtimeMs(interpreter) ?? 0, askedAtMs: this.clock.wallMs() });
        return result?.facts ?? null;
      });
      this.inFlight.set(key, answer);
    }
    return answer;
  }

  private stillValid(entry: CacheEntry, interpreter: string): boolean {
    if (mtimeMs(interpreter) !== entry.interpreterMtimeMs) return false;
    if (entry.torchVersionFile === null) return this.clock.wallMs() - entry.askedAtMs < NO_TORCH_RECHECK_MS;
    return mtimeMs(entry.torchVersionFile) === entry.torchVersionMtimeMs;
  }

  private query(interpreter: string, cwd: string, env: Record<string, string>): Promise<Omit<CacheEntry, 'interpreterMtimeMs' | 'askedAtMs'> | null> {
    // `nice` where there is one: the answer is never urgent, the training beside it is.
    const nice = resolveInterpreter('nice', cwd, env.PATH);
    const [file, args] = nice ? [nice, ['-n', '19', interpreter, '-c', SCRIPT]] : [interpreter, ['-c', SCRIPT]];
    return new Promise((resolve) => {
      execFile(file, args, { cwd, env, timeout: PYTHON_TIMEOUT_MS }, (error, stdout) => {
        if (error) return resolve(null);
        try {
          const parsed = JSON.parse(stdout.trim().split('\n').pop() ?? 'null') as { facts: PythonFacts; torchVersionFile: string | null };
          resolve({ facts: parsed.facts, torchVersionFile: parsed.torchVersionFile, torchVersionMtimeMs: mtimeMs(parsed.torchVersionFile) });
        } catch {
          resolve(null);
        }
      });
    });
  }

  private read(): Record<string, CacheEntry> {
    try {
      const parsed: unknown = JSON.parse(fs.readFileSync(this.cacheFile, 'utf8'));
      return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, CacheEntry>) : {};
    } catch {
      // None yet, or unreadable: asked again, and written anew.
      return {};
    }
  }

  private write(key: string, entry: CacheEntry): void {
    const entries = Object.entries({ ...this.read(), [key]: entry })
      .sort(([, a], [, b]) => b.askedAtMs - a.askedAtMs)
      .slice(0, MAX_ENTRIES);
    try {
      fs.mkdirSync(path.dirname(this.cacheFile), { recursive: true });
      // Written whole and renamed, so a reader never sees half a file.
      const temporary = `${this.cacheFile}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, JSON.stringify(Object.fromEntries(entries)));
      fs.renameSync(temporary, this.cacheFile);
    } catch {
      // A cache that cannot be written only means asking again next time.
    }
  }
}
