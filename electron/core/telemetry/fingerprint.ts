// The environment a run ran in, recorded with it: comparisons between runs warn when these differ.
import fs from 'node:fs';
import os from 'node:os';
import { parseNvidiaSmiXml } from './nvidiaSmi/index.js';
import { runNvidiaSmi } from '../system/nvidiaSmi.js';

/** The note a run keeps (in its `telemetryNotes`, after `info: `) when no nvidia-smi was there to sample. */
export const NO_NVIDIA_SMI_NOTE = 'no nvidia-smi found (no NVIDIA GPU or driver): host telemetry only';

export function hostFingerprint(): Record<string, unknown> {
  const cpuinfo = readText('/proc/cpuinfo') ?? '';
  return {
    // Which box recorded the run: runs published to MLflow from several are told apart by it.
    hostname: os.hostname(),
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

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
