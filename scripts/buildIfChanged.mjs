// Builds the renderer and the Node code only when their sources changed since the last build (`npm run serve`, `npm run cli`).
// A build that succeeds writes a stamp: the time it started and the list of its inputs. A part is stale when its output is
// missing, an input is newer than the stamp, or an input was added or removed (a deletion leaves no newer mtime behind).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Lives in dist/, so `rm -rf dist` (or a fresh clone) forgets every stamp with the outputs. */
const STAMP_DIR = 'dist/.build-stamps';

/**
 * The two parts of `npm run build`. Inputs are folders (walked) or files; the lock file is an input of both, since an
 * upgraded dependency (vite, React, TypeScript) changes the output without touching our sources.
 */
export const BUILD_PARTS = [
  {
    name: 'renderer',
    script: 'build:renderer',
    inputs: ['renderer', 'electron/shared', 'vite.renderer.config.ts', 'tsconfig.base.json', 'package.json', 'package-lock.json'],
    output: 'dist/renderer/index.html',
  },
  {
    name: 'node',
    script: 'build:node',
    inputs: [
      'electron/shared',
      'electron/core',
      'electron/server',
      'electron/cli',
      'scripts/bundleCli.mjs',
      'tsconfig.node.json',
      'tsconfig.base.json',
      'package.json',
      'package-lock.json',
    ],
    // The bundle is written last (see build:node), so its presence means both halves were built.
    output: 'dist/cli/tuning-bench.js',
  },
];

/** Every file under the inputs, relative to root and sorted, with its mtime in ms; missing inputs are skipped. */
export function listInputs(root, inputs) {
  const files = [];
  const visit = (relative) => {
    const absolute = path.join(root, relative);
    let stat;
    try {
      stat = fs.statSync(absolute);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const entry of fs.readdirSync(absolute)) visit(path.join(relative, entry));
    } else if (stat.isFile()) {
      files.push({ path: relative.split(path.sep).join('/'), mtimeMs: stat.mtimeMs });
    }
  };
  for (const input of inputs) visit(input);
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function stampPath(root, part) {
  return path.join(root, STAMP_DIR, `${part.name}.json`);
}

/** Why a part must be built, or null when its output is up to date. */
export function staleReason(root, part) {
  if (!fs.existsSync(path.join(root, part.output))) return `${part.output} is missing`;
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(stampPath(root, part), 'utf8'));
  } catch {
    return 'no record of a previous build';
  }
  const files = listInputs(root, part.inputs);
  const newer = files.find((file) => file.mtimeMs > stamp.startedAtMs);
  if (newer) return `${newer.path} changed`;
  const before = new Set(stamp.files);
  const now = new Set(files.map((file) => file.path));
  const added = [...now].find((file) => !before.has(file));
  if (added) return `${added} was added`;
  const removed = [...before].find((file) => !now.has(file));
  if (removed) return `${removed} was removed`;
  return null;
}

/**
 * Records a finished build. The time is the build's start, not its end: a file saved while the build ran is newer than
 * the stamp, so the next call builds again rather than trusting an output that may predate the edit.
 */
export function writeStamp(root, part, startedAtMs, files) {
  fs.mkdirSync(path.join(root, STAMP_DIR), { recursive: true });
  fs.writeFileSync(stampPath(root, part), `${JSON.stringify({ startedAtMs, files: files.map((file) => file.path) })}\n`);
}

function buildPart(root, part) {
  // The inputs are listed before the build starts, for the same reason the stamp holds the start time.
  const files = listInputs(root, part.inputs);
  const startedAtMs = Date.now();
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // stdout of the build goes to stderr: `npm run cli -- runs --json` must print only the command's JSON.
  execFileSync(npm, ['run', '--silent', part.script], { cwd: root, stdio: ['ignore', process.stderr, 'inherit'] });
  writeStamp(root, part, startedAtMs, files);
}

function main(argv) {
  const always = argv.includes('--always');
  const only = argv.filter((arg) => !arg.startsWith('--'));
  const unknown = only.filter((name) => !BUILD_PARTS.some((part) => part.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`buildIfChanged: unknown part ${unknown.join(', ')}; the parts are ${BUILD_PARTS.map((part) => part.name).join(', ')}.\n`);
    process.exit(2);
  }
  for (const part of BUILD_PARTS) {
    if (only.length > 0 && !only.includes(part.name)) continue;
    const reason = always ? 'asked for a full build' : staleReason(REPO_ROOT, part);
    if (reason === null) {
      process.stderr.write(`build: ${part.name} is up to date, not rebuilt\n`);
      continue;
    }
    process.stderr.write(`build: ${part.name} (${reason})...\n`);
    try {
      buildPart(REPO_ROOT, part);
    } catch {
      process.stderr.write(`build: ${part.name} failed; the errors are above.\n`);
      process.exit(1);
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
