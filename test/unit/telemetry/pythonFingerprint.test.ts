// Python's versions are asked once per interpreter and kept on disk, until the interpreter or torch changes.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PythonFingerprints } from '../../../electron/core/telemetry/pythonFingerprint.js';
import { ManualClock } from '../../../electron/core/clock.js';
import { makeTempDir } from '../../helpers/tempCore.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** An interpreter that counts how often it is asked, and answers as the real query script would. */
function countingPython(dir: string, torchVersionFile: string | null): { interpreter: string; asked: () => number } {
  const counter = path.join(dir, 'asked');
  const interpreter = path.join(dir, 'python3');
  const answer = JSON.stringify({ facts: { pythonVersion: '3.11.2', torchVersion: torchVersionFile ? '2.5.1' : null }, torchVersionFile });
  fs.writeFileSync(interpreter, `#!/bin/sh\necho x >> ${JSON.stringify(counter)}\necho '${answer}'\n`, { mode: 0o755 });
  return { interpreter, asked: () => (fs.existsSync(counter) ? fs.readFileSync(counter, 'utf8').split('\n').filter(Boolean).length : 0) };
}

describe('PythonFingerprints', () => {
  it('asks an interpreter once, across engines, until it or torch changes', async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const versionFile = path.join(dir, 'version.py');
    fs.writeFileSync(versionFile, "__version__ = '2.5.1'\n");
    const { interpreter, asked } = countingPython(dir, versionFile);
    const cacheFile = path.join(dir, 'cache.json');
    const env = { PATH: process.env.PATH ?? '' };

    expect(await new PythonFingerprints(cacheFile).ask([interpreter, 'train.py'], dir, env)).toMatchObject({ torchVersion: '2.5.1' });
    // A second engine (the next CLI process) reads the file, and does not ask.
    expect(await new PythonFingerprints(cacheFile).ask([interpreter, 'train.py'], dir, env)).toMatchObject({ torchVersion: '2.5.1' });
    expect(asked()).toBe(1);

    // torch upgraded: its version file is rewritten, and the interpreter is asked again.
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(versionFile, later, later);
    await new PythonFingerprints(cacheFile).ask([interpreter], dir, env);
    expect(asked()).toBe(2);
    // A new interpreter at the same path likewise.
    fs.utimesSync(interpreter, later, new Date(Date.now() + 9000));
    await new PythonFingerprints(cacheFile).ask([interpreter], dir, env);
    expect(asked()).toBe(3);
  });

  it('asks again a day later when torch was missing (an install changes no file it knew)', async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const { interpreter, asked } = countingPython(dir, null);
    const cacheFile = path.join(dir, 'cache.json');
    const clock = new ManualClock();
    await new PythonFingerprints(cacheFile, clock).ask([interpreter], dir, {});
    await new PythonFingerprints(cacheFile, clock).ask([interpreter], dir, {});
    expect(asked()).toBe(1);
    clock.advance(25 * 3600 * 1000);
    await new PythonFingerprints(cacheFile, clock).ask([interpreter], dir, {});
    expect(asked()).toBe(2);
  });

  it('gives nothing for commands that are not Python, and for a missing interpreter', async () => {
    const fingerprints = new PythonFingerprints(path.join(makeTempDir(), 'cache.json'));
    expect(await fingerprints.ask(['node', 'train.js'], '/', { PATH: process.env.PATH ?? '' })).toBeNull();
    expect(await fingerprints.ask(['/nonexistent/python3'], '/', {})).toBeNull();
  });

  it("reads the real interpreter's PyTorch", async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    const facts = await new PythonFingerprints(path.join(dir, 'cache.json')).ask(['/usr/bin/python3', '-c', 'pass'], dir, { PATH: process.env.PATH ?? '' });
    expect(facts).toMatchObject({ pythonVersion: expect.stringMatching(/^3\./u) });
  }, 60_000);

  it("asks a virtual environment's python as the command runs it, not the system Python its link points to", async () => {
    const dir = makeTempDir();
    dirs.push(dir);
    // A venv's bin/python is a symbolic link to the system's; run through the link it finds the venv (pyvenv.cfg beside it).
    const venv = path.join(dir, 'venv');
    execFileSync('/usr/bin/python3', ['-m', 'venv', '--without-pip', venv]);
    const python = path.join(venv, 'bin', 'python');
    expect(fs.lstatSync(python).isSymbolicLink()).toBe(true);
    // Its own torch, unlike any the system has.
    const sitePackages = execFileSync(python, ['-c', "import sysconfig; print(sysconfig.get_paths()['purelib'])"], { encoding: 'utf8' }).trim();
    fs.mkdirSync(path.join(sitePackages, 'torch'), { recursive: true });
    fs.writeFileSync(
      path.join(sitePackages, 'torch', '__init__.py'),
      [
        '__version__ = "9.9.9"',
        'class version:',
        '    cuda = None',
        'class backends:',
        '    class cudnn:',
        '        is_available = staticmethod(lambda: False)',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(sitePackages, 'torch', 'version.py'), '__version__ = "9.9.9"\n');
    const facts = await new PythonFingerprints(path.join(dir, 'cache.json')).ask([python, 'train.py'], dir, { PATH: process.env.PATH ?? '' });
    expect(facts).toMatchObject({ torchVersion: '9.9.9', pythonExecutable: python });
    // Typed by name with the venv's bin first on PATH (an activated venv): the same.
    const activated = await new PythonFingerprints(path.join(dir, 'cache2.json')).ask(['python', 'train.py'], dir, {
      PATH: `${path.join(venv, 'bin')}:/usr/bin:/bin`,
    });
    expect(activated).toMatchObject({ torchVersion: '9.9.9' });
  }, 60_000);
});
