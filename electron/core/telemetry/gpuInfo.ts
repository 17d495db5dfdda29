// The GPU info card of `nvidia-smi -q -x`, or why there is none, in words a person reads on the GPU page.
import { runNvidiaSmi } from '../system/nvidiaSmi.js';
import { classifyNvidiaSmiMessage, parseNvidiaSmiXml, type GpuInfoCard } from './nvidiaSmi/index.js';

export type GpuCardAnswer = { available: true; reason: null; card: GpuInfoCard } | { available: false; reason: string; card: null };

/** `binary` null: no nvidia-smi was found. A driver that answers with an error says its own line. */
export async function readGpuCard(binary: string | null, env: Record<string, string>): Promise<GpuCardAnswer> {
  if (binary === null) return { available: false, reason: 'no nvidia-smi found: no NVIDIA GPU or driver on this machine', card: null };
  const { code, output } = await runNvidiaSmi(binary, ['-q', '-x'], env);
  const message = classifyNvidiaSmiMessage(output);
  if (code !== 0) return { available: false, reason: message?.line ?? `nvidia-smi -q -x exited ${code}`, card: null };
  const parsed = parseNvidiaSmiXml(output);
  if (!parsed.ok) return { available: false, reason: `could not read nvidia-smi's answer: ${parsed.error}`, card: null };
  return { available: true, reason: null, card: parsed.card };
}
