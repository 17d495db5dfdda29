// The build step of `npm run serve` / `npm run cli`: skipped when nothing changed, run when a source changed, appeared or went.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILD_PARTS, listInputs, staleReason, writeStamp, type BuildPart } from '../../scripts/buildIfChanged.mjs';

const part: BuildPart = { name: 'node', script: 'build:node', inputs: ['src', 'tsconfig.json'], output: 'dist/out.js' };
let root: string;

function write(relative: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  fs.writeFileSync(path.join(root, relative), text);
}

/** Sets a file's mtime seconds away from the stamp, so the test does not depend on the file system's clock resolution. */
function touch(relative: string, mtimeMs: number): void {
  fs.utimesSync(path.join(root, relative), mtimeMs / 1000, mtimeMs / 1000);
}

/** A finished build: the output exists and the stamp records the inputs as they are now, a minute after their mtimes. */
function built(): number {
  write('dist/out.js', 'built');
  const startedAtMs = Date.now();
  for (const file of listInputs(root, part.inputs)) touch(file.path, startedAtMs - 60_000);
  writeStamp(root, part, startedAtMs, listInputs(root, part.inputs));
  return startedAtMs;
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-build-stamp-'));
  write('src/a.ts', 'a');
  write('src/nested/b.ts', 'b');
  write('tsconfig.json', '{}');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('staleReason', () => {
  it('builds when the output is missing, even with a stamp', () => {
    built();
    fs.rmSync(path.join(root, 'dist/out.js'));
    expect(staleReason(root, part)).toBe('dist/out.js is missing');
  });

  it('builds when there is no record of a previous build', () => {
    write('dist/out.js', 'built by hand');
    expect(staleReason(root, part)).toBe('no record of a previous build');
  });

  it('skips when no input changed since the build started', () => {
    built();
    expect(staleReason(root, part)).toBeNull();
  });

  it('builds when a nested source or a config file is newer than the build', () => {
    const startedAtMs = built();
    touch('src/nested/b.ts', startedAtMs + 5_000);
    expect(staleReason(root, part)).toBe('src/nested/b.ts changed');
    built();
    touch('tsconfig.json', Date.now() + 5_000);
    expect(staleReason(root, part)).toBe('tsconfig.json changed');
  });

  it('builds when a file saved during the build is newer than its start', () => {
    const startedAtMs = built();
    touch('src/a.ts', startedAtMs + 1);
    expect(staleReason(root, part)).toBe('src/a.ts changed');
  });

  it('builds when a source is added with an old mtime (copied or checked out) or removed', () => {
    const startedAtMs = built();
    write('src/c.ts', 'c');
    touch('src/c.ts', startedAtMs - 3_600_000);
    expect(staleReason(root, part)).toBe('src/c.ts was added');
    built();
    fs.rmSync(path.join(root, 'src/a.ts'));
    expect(staleReason(root, part)).toBe('src/a.ts was removed');
  });
});

describe('BUILD_PARTS', () => {
  const repoRoot = path.resolve(import.meta.dirname, '../..');
  it('names scripts that package.json has, and inputs that exist', () => {
    const scripts = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const buildPart of BUILD_PARTS) {
      expect(scripts[buildPart.script], buildPart.script).toBeDefined();
      for (const input of buildPart.inputs) expect(fs.existsSync(path.join(repoRoot, input)), input).toBe(true);
    }
  });

  it('covers every folder the Node build compiles', () => {
    const tsconfig = JSON.parse(fs.readFileSync(path.join(repoRoot, 'tsconfig.node.json'), 'utf8')) as { include: string[] };
    const nodeInputs = BUILD_PARTS.find((buildPart) => buildPart.name === 'node')!.inputs;
    for (const pattern of tsconfig.include) expect(nodeInputs).toContain(pattern.replace(/\/\*\*\/\*$/u, ''));
  });
});
