// The last error boundary of each face: a promise nobody awaited is recorded and the process (and its runs) go on; links open only to the docs.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAllowedExternalUrl } from '../../electron/main/externalLinks.js';
import { TSX_LOADER } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/tempCore.js';

describe('process guards', () => {
  it('record an unhandled rejection and keep the process alive', () => {
    const guards = path.join(REPO_ROOT, 'electron/core/processGuards.ts');
    const script = `
      const { installProcessGuards } = await import(${JSON.stringify(guards)});
      installProcessGuards((message) => process.stderr.write('guard: ' + message + '\\n'));
      void Promise.reject(new TypeError('The database connection is not open'));
      setTimeout(() => process.stdout.write('still recording\\n'), 100);
    `;
    const result = spawnSync(process.execPath, ['--import', TSX_LOADER, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe('still recording\n');
    expect(result.stderr).toMatch(/guard: an internal operation failed.*TypeError: The database connection is not open/su);
  });
});

describe('the external link allowlist', () => {
  it('opens https documentation links and nothing else', () => {
    expect(isAllowedExternalUrl('https://docs.nvidia.com/deploy/nvidia-smi/index.html')).toBe(true);
    expect(isAllowedExternalUrl('https://pytorch.org/docs/stable/notes/cuda.html')).toBe(true);
    for (const refused of [
      'https://evil.example/',
      'https://docs.nvidia.com.evil.example/',
      'http://docs.nvidia.com/',
      'https://user:pass@github.com/',
      'https://github.com:8443/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'not a url',
    ]) {
      expect(isAllowedExternalUrl(refused), refused).toBe(false);
    }
  });

  it("opens the UI of an MLflow server this database publishes to, on its own port, and no other server's", () => {
    const origins = ['http://mlflow.lab:5000'];
    expect(isAllowedExternalUrl('http://mlflow.lab:5000/#/experiments/1/runs/abc', origins)).toBe(true);
    for (const refused of ['http://mlflow.lab:5001/', 'http://evil.example:5000/', 'http://user:pw@mlflow.lab:5000/', 'javascript:alert(1)']) {
      expect(isAllowedExternalUrl(refused, origins), refused).toBe(false);
    }
  });
});
