// The environment a run ran in, recorded with it: comparisons between runs warn when these differ.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseNvidiaSmiXml } from './nvidiaSmi/index.js';
import { runNvidiaSmi } from './nvidiaSmiSampler.js';

/** Importing torch takes a second or two; it is asked once per Python binary per engine. */
const PYTHON_TIMEOUT_MS = 30_000;
const pythonCache = new Map<string, Promise<Record<string, unknown> | null>>();

export function hostFingerprint(): Record<string, unknown> {
  const cpuinfo = readText('/proc/cpuinfo') ?? '';
  return {
    cpuModel: /^model name\s*:\s*(.+)$/mu.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? null,
    cpuCores: os.cpus().length,
    cpuGovernor: readText('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor')?.trim() ?? null,
    kernel: os.release(),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  };
}

/** GPU, driver and CUDA versions, VBIOS, PCIe link, ECC, power limit, persistence and clocks, from `nvidia-smi -q -x`. */
export async function gpuFingerprint(binary: string, gpu: string, env: Record<string, string>): Promise<Record<string, unknown> | null> {
  const { code, output } = await runNvidiaSmi(binary, ['-q', '-x', '-i', gpu], env);
  if (code !== 0) return null;
  const parsed = parseNvidiaSmiXml(output);
  if (!parsed.ok) return null;
  const card = parsed.card;
  const info = card.gpus[0];
  if (!info) return null;
  return {
    gpuName: info.name,
    gpuUuid: info.uuid,
    driverVersion: card.driverVersion,
    cudaVersion: card.cudaVersion,
    vbiosVersion: info.vbiosVersion,
    pcieGen: info.pcie.genCurrent,
    pcieWidth: info.pcie.widthCurrent,
    eccMode: info.eccMode,
    powerLimitW: info.power.limitW,
    persistenceMode: info.persistenceMode,
    applicationsClocks: info.clocks.applications,
    maxClocks: { graphicsMHz: info.clocks.max.graphicsMHz, memMHz: info.clocks.max.memMHz },
  };
}

/** For a Python command: its version and PyTorch's (with CUDA and cuDNN), or null for anything else. */
export function pythonFingerprint(command: readonly string[], cwd: string, env: Record<string, string>): Promise<Record<string, unknown> | null> {
  const program = command[0] ?? '';
  if (!/^python[\d.]*$/u.test(path.basename(program))) return Promise.resolve(null);
  const key = `${program}\0${env.PATH ?? ''}\0${env.PYTHONPATH ?? ''}`;
  let answer = pythonCache.get(key);
  if (!answer) {
    const script = [
      'import json, platform, sys',
      'facts = {"pythonVersion": platform.python_version(), "pythonExecutable": sys.executable}',
      'try:',
      '    import torch',
      '    facts.update(torchVersion=torch.__version__, torchCuda=torch.version.cuda,',
      '                 cudnn=(torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None))',
      'except Exception as error:',
      '    facts.update(torchVersion=None, torchError=type(error).__name__)',
      'print(json.dumps(facts))',
    ].join('\n');
    answer = new Promise((resolve) => {
      execFile(program, ['-c', script], { cwd, env, timeout: PYTHON_TIMEOUT_MS }, (error, stdout) => {
        if (error) return resolve(null);
        try {
          resolve(JSON.parse(stdout.trim().split('\n').pop() ?? 'null') as Record<string, unknown>);
        } catch {
          resolve(null);
        }
      });
    });
    pythonCache.set(key, answer);
  }
  return answer;
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
