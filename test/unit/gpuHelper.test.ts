// The pkexec GPU helper: only the nvidia-smi allowlist reaches nvidia-smi, argv unchanged; the polkit policy names it.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HELPER = join(ROOT, 'build/gpu-helper/tuning-bench-gpu-helper');
const POLICY = join(ROOT, 'build/polkit/dev.tuningbench.gpu-control.policy');
const HELPER_INSTALL_PATH = '/usr/lib/tuning-bench/tuning-bench-gpu-helper';
/** The paths the helper trusts, in its order; the PKEXEC_UID test must not reach a real GPU. */
const SYSTEM_NVIDIA_SMI = ['/usr/bin/nvidia-smi', '/usr/local/bin/nvidia-smi', '/bin/nvidia-smi'];
/** EX_USAGE from sysexits.h: the helper's answer to anything outside the allowlist. */
const EX_USAGE = 64;

const UUID = 'GPU-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d';

const dir = mkdtempSync(join(tmpdir(), 'tb-gpu-helper-'));
const recordFile = join(dir, 'calls.jsonl');
const recorder = join(dir, 'nvidia-smi-recorder.cjs');
// Stands in for nvidia-smi: one JSON line per call with the argv it was given.
writeFileSync(
  recorder,
  `#!${process.execPath}\nrequire('node:fs').appendFileSync(${JSON.stringify(recordFile)}, JSON.stringify(process.argv.slice(2)) + '\\n');\n`,
);
chmodSync(recorder, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runHelper(argv: string[], extraEnv: Record<string, string> = {}): SpawnSyncReturns<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, TUNING_BENCH_HELPER_NVIDIA_SMI: recorder, ...extraEnv };
  if (!('PKEXEC_UID' in extraEnv)) delete env.PKEXEC_UID;
  if (!('SUDO_UID' in extraEnv)) delete env.SUDO_UID;
  return spawnSync('/bin/sh', [HELPER, ...argv], { env, encoding: 'utf8' });
}

function recordedCalls(): string[][] {
  if (!existsSync(recordFile)) return [];
  return readFileSync(recordFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as string[]);
}

beforeEach(() => rmSync(recordFile, { force: true }));

describe('tuning-bench-gpu-helper', () => {
  const allowed: string[][] = [
    ['-i', '0', '-pm', '0'],
    ['-i', '0', '-pm', '1'],
    ['-i', '99', '-pm', '1'],
    ['-i', '0', '-lgc', '2100,2100'],
    ['-i', '1', '-lgc', '210,2100'],
    ['-i', '0', '-lgc', '0,99999'],
    ['-i', '0', '-lmc', '405,9501'],
    ['-i', '0', '-rgc'],
    ['-i', '0', '-rmc'],
    ['-i', '0', '-pl', '300'],
    ['-i', '0', '-pl', '1'],
    ['-i', '0', '-pl', '450.5'],
    ['-i', '0', '-pl', '9999.99'],
    ['-i', UUID, '-pm', '1'],
    ['-i', UUID.toUpperCase(), '-lgc', '1500,1800'],
  ];

  it.each(allowed.map((argv) => [argv.join(' '), argv]))('passes %s to nvidia-smi unchanged', (_label, argv) => {
    const result = runHelper(argv);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(recordedCalls()).toEqual([argv]);
  });

  const refused: string[][] = [
    [],
    ['-i', '0', '-lgc', '2100'],
    ['-i', '0', '-lgc', '2100,2100,2100'],
    ['-i', '0', '-lgc', '2100;reboot'],
    ['-i', '0', '-lgc', '$(id)'],
    ['-i', '0', '-lgc', '`id`'],
    ['-i', '0', '-lgc', '2100,1000'],
    ['-i', '0', '-lgc', '123456,123456'],
    ['-i', '0', '-lgc', ',2100'],
    ['-i', '0', '-lgc', '2100,'],
    ['-i', '0', '-lgc', '2100, 2100'],
    ['-i', '0', '-lgc', '0x10,0x20'],
    ['-i', '0', '-lmc', '-1,5'],
    ['-i', '0', '-pl', '300W'],
    ['-i', '0', '-pl', '-5'],
    ['-i', '0', '-pl', '12345'],
    ['-i', '0', '-pl', '1.234'],
    ['-i', '0', '-pl', '1.2.3'],
    ['-i', '0', '-pl', '1.'],
    ['-i', '0', '-pl', '.5'],
    ['-i', '0', '-pl', ''],
    ['-i', '0', '-pm', '2'],
    ['-i', '0', '-pm', '01'],
    ['-i', '0', '-pm'],
    ['-i', '0', '-r'],
    ['-i', '0', '-mig', '1'],
    ['-i', '0', '-PM', '1'],
    ['-i', '0', '-rgc', '1'],
    ['-i', 'x', '-pm', '1'],
    ['-i', '', '-pm', '1'],
    ['-i', '100', '-pm', '1'],
    ['-i', '-1', '-pm', '1'],
    ['-i', '0,1', '-pm', '1'],
    ['-i', '0', '-pm', '1', 'extra'],
    ['-i', '0', '-pm', '1', '-i', '1'],
    ['-pm', '1'],
    ['-pm', '1', '-i', '0'],
    ['--id=0', '-pm', '1'],
    ['-i=0', '-pm', '1'],
    ['-i', '0', '-pm=1'],
    ['-i', '0', '--', '-pm', '1'],
    ['-i', '0', '--lock-gpu-clocks=1,2'],
    ['-i', '0', '--persistence-mode', '1'],
    ['-i', 'GPU-zzz', '-pm', '1'],
    ['-i', 'GPU-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6', '-pm', '1'],
    ['-i', 'GPU-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6dd', '-pm', '1'],
    ['-i', 'GPU-1a2b3c4d5e6f-7a8b-9c0d-1e2f3a4b5c6d', '-pm', '1'],
    ['-i', 'GPU-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6g', '-pm', '1'],
    ['-i', 'MIG-1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d', '-pm', '1'],
    ['-i', `${UUID}\n`, '-pm', '1'],
    ['-i', '0', '-lgc', '2100,2100\nreboot'],
    ['-i', '0', '-lgc', '2100,2100\n'],
    ['-i', '0', '-pm', '1\n'],
    ['-i', '0', '-pl', '300 '],
    ['-i', '0', '-pl', '３００'],
    ['-i', '0\n', '-pm', '1'],
  ];

  it.each(refused.map((argv) => [JSON.stringify(argv), argv]))('refuses %s with exit 64, never calling nvidia-smi', (_label, argv) => {
    const result = runHelper(argv);
    expect(result.status).toBe(EX_USAGE);
    expect(result.stdout).toBe('');
    // One line that says it refused and lists what is allowed.
    expect(result.stderr).toMatch(/^tuning-bench-gpu-helper: refused: [^\n]*allowed: [^\n]*-lgc[^\n]*\n$/);
    expect(recordedCalls()).toEqual([]);
  });

  it('reports the nvidia-smi exit status, since it execs it', () => {
    const failing = join(dir, 'failing-nvidia-smi');
    writeFileSync(failing, '#!/bin/sh\necho "Insufficient Permissions" >&2\nexit 4\n');
    chmodSync(failing, 0o755);
    const result = runHelper(['-i', '0', '-pm', '1'], { TUNING_BENCH_HELPER_NVIDIA_SMI: failing });
    expect(result.status).toBe(4);
    expect(result.stderr).toBe('Insufficient Permissions\n');
  });

  it('refuses a relative override path rather than looking it up', () => {
    const result = runHelper(['-i', '0', '-pm', '1'], { TUNING_BENCH_HELPER_NVIDIA_SMI: 'nvidia-smi-recorder.cjs' });
    expect(result.status).toBe(127);
    expect(result.stderr).toMatch(/absolute path/);
    expect(recordedCalls()).toEqual([]);
  });

  // With a real nvidia-smi installed this would change a real GPU, so it runs only where there is none.
  it.skipIf(SYSTEM_NVIDIA_SMI.some((path) => existsSync(path)))('ignores the override under pkexec (PKEXEC_UID set) and finds no nvidia-smi: exit 127', () => {
    const result = runHelper(['-i', '0', '-pm', '1'], { PKEXEC_UID: '1000' });
    expect(result.status).toBe(127);
    expect(result.stderr).toMatch(/nvidia-smi not found/);
    expect(recordedCalls()).toEqual([]);
  });

  it.skipIf(SYSTEM_NVIDIA_SMI.some((path) => existsSync(path)))(
    'ignores the override under sudo too (SUDO_UID set), even if sudoers kept the environment',
    () => {
      const result = runHelper(['-i', '0', '-pm', '1'], { SUDO_UID: '1000' });
      expect(result.status).toBe(127);
      expect(recordedCalls()).toEqual([]);
    },
  );

  it('is an executable POSIX sh script with set -eu', () => {
    const text = readFileSync(HELPER, 'utf8');
    expect(text.split('\n').slice(0, 1)).toEqual(['#!/bin/sh']);
    expect(text).toMatch(/^set -eu$/m);
    expect(spawnSync('test', ['-x', HELPER]).status).toBe(0);
  });
});

describe('the polkit policy', () => {
  const xml = readFileSync(POLICY, 'utf8');

  it('is well-formed XML: balanced tags, no stray markup characters', () => {
    const body = xml
      .replace(/^<\?xml[^>]*\?>/, '')
      .replace(/<!DOCTYPE[^>]*>/, '')
      .replace(/<!--[\s\S]*?-->/g, '');
    const stack: string[] = [];
    for (const [tag, closing, name = '', , selfClosing] of body.matchAll(/<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[\w.:-]+="[^"<]*")*)\s*(\/?)>/g)) {
      if (selfClosing) continue;
      if (closing) expect(stack.pop(), `closing ${tag}`).toBe(name);
      else stack.push(name);
    }
    expect(stack).toEqual([]);
    const text = body.replace(/<[^>]*>/g, '');
    expect(text).not.toMatch(/[<>]|&(?!(?:amp|lt|gt|quot|apos);)/);
  });

  it('declares the action, its defaults and the helper install path', () => {
    expect(xml).toContain('<!DOCTYPE policyconfig PUBLIC "-//freedesktop//DTD PolicyKit Policy Configuration 1.0//EN"');
    expect(xml).toContain('<vendor>Tuning Bench</vendor>');
    expect(xml.match(/<action id="([^"]+)">/g)).toEqual(['<action id="dev.tuningbench.gpu-control">']);
    expect(xml).toMatch(/<allow_any>auth_admin<\/allow_any>/);
    expect(xml).toMatch(/<allow_inactive>auth_admin<\/allow_inactive>/);
    expect(xml).toMatch(/<allow_active>auth_admin_keep<\/allow_active>/);
    const execPath = /<annotate key="org\.freedesktop\.policykit\.exec\.path">([^<]*)<\/annotate>/.exec(xml)?.[1];
    expect(execPath).toBe(HELPER_INSTALL_PATH);
  });
});
