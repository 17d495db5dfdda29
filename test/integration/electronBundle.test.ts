// The engine bundled as CommonJS, as Vite builds it into the Electron main process: its worker thread must still start.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/tempCore.js';

const OUT = path.join(REPO_ROOT, 'test-results', 'bundle-probe');
afterAll(() => fs.rmSync(OUT, { recursive: true, force: true }));

describe('the engine in a CommonJS bundle', () => {
  it('finds the output writer worker beside the bundle and stores through it', async () => {
    await build({
      configFile: false,
      logLevel: 'silent',
      root: REPO_ROOT,
      build: {
        outDir: OUT,
        emptyOutDir: true,
        minify: false,
        // The same shape as vite.main.config.ts: the workers as their own entries, CommonJS, natives external.
        lib: {
          entry: {
            probe: path.join(REPO_ROOT, 'test/fixtures/bundleProbe/probe.ts'),
            outputWriterWorker: path.join(REPO_ROOT, 'electron/core/ingest/outputWriterWorker.ts'),
            outputParserWorker: path.join(REPO_ROOT, 'electron/core/ingest/outputParserWorker.ts'),
            ingestTaskWorker: path.join(REPO_ROOT, 'electron/core/ingest/ingestTaskWorker.ts'),
          },
          formats: ['cjs'],
          fileName: (_format, name) => `${name}.cjs`,
        },
        rollupOptions: { external: ['better-sqlite3', 'node-pty', /^node:/u] },
      },
    });
    const result = spawnSync(process.execPath, [path.join(OUT, 'probe.cjs')], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      'probe: stored by the bundled worker; parsed by the bundled parser: loss 2.5; scanned by the bundled task thread: step 1: loss 2.5\n',
    );
  }, 60_000);
});
