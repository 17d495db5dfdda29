// A run's environment fingerprint in words: labels for the engine's keys and a value's display text.

/** In display order; keys the engine adds later are shown after these, under their own names. */
export const FINGERPRINT_LABELS: Readonly<Record<string, string>> = {
  gpuName: 'GPU',
  gpuUuid: 'GPU UUID',
  driverVersion: 'Driver',
  cudaVersion: 'CUDA',
  vbiosVersion: 'VBIOS',
  pcieGen: 'PCIe',
  powerLimitW: 'Power limit',
  persistenceMode: 'Persistence mode',
  eccMode: 'ECC',
  applicationsClocks: 'Application clocks',
  maxClocks: 'Max clocks',
  hostname: 'Host',
  cpuModel: 'CPU',
  cpuCores: 'CPU threads',
  cpuGovernor: 'CPU governor',
  memoryGiB: 'Memory',
  kernel: 'Kernel',
  pythonVersion: 'Python',
  pythonExecutable: 'Python binary',
  torchVersion: 'PyTorch',
  torchCuda: 'PyTorch CUDA',
  cudnn: 'cuDNN',
  torchError: 'PyTorch import',
};

const CLOCK_NAMES: Readonly<Record<string, string>> = {
  graphicsMHz: 'graphics',
  smMHz: 'SM',
  memMHz: 'memory',
  videoMHz: 'video',
};

/** Any value as one line: on/off for flags, `graphics 2790 MHz · memory 10501 MHz` for a clock set. */
export function describeValue(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (typeof value === 'number') return Number.isFinite(value) ? value.toLocaleString() : String(value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(describeValue).filter(Boolean).join(', ') || null;
  if (typeof value === 'object') {
    const parts = Object.entries(value as Record<string, unknown>)
      .map(([key, inner]) => {
        const text = describeValue(inner);
        if (text === null) return null;
        const clock = CLOCK_NAMES[key];
        return clock ? `${clock} ${text} MHz` : `${key} ${text}`;
      })
      .filter((part): part is string => part !== null);
    return parts.length > 0 ? parts.join(' · ') : null;
  }
  return String(value);
}

/** A fact's text, with the units its key implies; the PCIe generation and width read as one fact. */
export function describeFact(key: string, value: unknown, all: Readonly<Record<string, unknown>>): string | null {
  if (key === 'pcieWidth') return 'pcieGen' in all ? null : describeValue(value) && `x${describeValue(value)}`;
  if (key === 'pcieGen') {
    const gen = describeValue(value);
    const width = describeValue(all.pcieWidth);
    if (gen === null && width === null) return null;
    return [gen && `Gen ${gen}`, width && `x${width}`].filter(Boolean).join(' ');
  }
  const text = describeValue(value);
  if (text === null) return null;
  if (key === 'powerLimitW') return `${text} W`;
  if (key === 'memoryGiB') return `${text} GiB`;
  return text;
}

/** The folded block's one line: the GPU with its driver and CUDA, then the CPU. */
export function fingerprintHeadline(fp: Readonly<Record<string, unknown>>): string {
  const gpu = describeValue(fp.gpuName);
  const driver = describeValue(fp.driverVersion);
  const cuda = describeValue(fp.cudaVersion);
  const torch = describeValue(fp.torchVersion);
  const parts = [gpu ?? 'no NVIDIA GPU', driver && `driver ${driver}`, cuda && `CUDA ${cuda}`, describeValue(fp.cpuModel), torch && `PyTorch ${torch}`];
  return parts.filter(Boolean).join(' · ');
}
