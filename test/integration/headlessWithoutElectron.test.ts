// A headless install (ELECTRON_SKIP_BINARY_DOWNLOAD=1, README) has no Electron: the compiled CLI and server must run
// with every way of loading `electron` made to fail, so a stray import anywhere below them shows up here.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, REPO_ROOT } from '../helpers/tempCore.js';

const dir = makeTempDir();
const db = path.join(dir, 'runs.db');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** ESM imports: a resolve hook that refuses the package. */
const esmHook = path.join(dir, 'no-electron.mjs');
fs.writeFileSync(
  esmHook,
  `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(
    "export async function resolve(specifier, context, next) { if (specifier === 'electron' || specifier.startsWith('electron/')) throw new Error('electron loaded by ' + context.parentURL); return next(specifier, context); }",
  )}));\n`,
);
/** require() from CommonJS dependencies: the same refusal. */
const cjsHook = path.join(dir, 'no-electron.cjs');
fs.writeFileSync(
  cjsHook,
  "const Module = require('node:module'); const resolve = Module._resolveFilename; Module._resolveFilename = function (request, ...rest) { if (request === 'electron' || request.startsWith('electron/')) throw new Error('electron required'); return resolve.call(this, request, ...rest); };\n",
);
const nodeArgs = ['--import', esmHook, '--require', cjsHook, path.join(REPO_ROOT, 'bin/tuning-bench.js'), '--db', db];
const built = fs.existsSync(path.join(REPO_ROOT, 'dist/node/electron/cli/entry.js'));

describe.runIf(built)('the compiled CLI and server without the electron package (npm test builds them first)', () => {
  it('the hooks do refuse electron', () => {
    const result = spawnSync(process.execPath, ['--import', esmHook, '--require', cjsHook, '-e', "require('electron')"], { encoding: 'utf8' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('electron required');
  });

  it('runs a command and stores it', () => {
    const result = spawnSync(process.execPath, [...nodeArgs, 'run', '--json', '--', process.execPath, '-e', "console.log('step 1: loss 2.5')"], {
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'succeeded', exitClass: 'ok' });
  });

  it('serves the UI', async () => {
    const server = spawn(process.execPath, [...nodeArgs, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let printed = '';
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          printed += chunk.toString();
          // Up to the line's end: a chunk may stop in the middle of the token.
          const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\r?\n/u.exec(printed);
          if (match) resolve(match[1]!);
        };
        server.stdout.on('data', onData);
        server.stderr.on('data', onData);
        server.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${printed}`)));
      });
      // The server trades the token for a cookie and redirects; fetch keeps no cookies, so follow by hand.
      const handshake = await fetch(url, { redirect: 'manual' });
      const cookie = handshake.headers.get('set-cookie')?.split(';')[0] ?? '';
      const page = handshake.status === 200 ? handshake : await fetch(new URL('/', url), { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
    } finally {
      server.kill('SIGINT');
    }
  });
});
