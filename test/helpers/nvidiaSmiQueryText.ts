// Test-only: the GPU info card from plain `nvidia-smi -q` text, to check the fake nvidia-smi against real captures (the engine reads XML; checked against the 590.48.01 H100 MIG and the
// 595.71.05 RTX 4080 SUPER captures; labels of older drivers — "Power Readings", "Power Draw",
// "Enforced Power Limit", "Clocks Throttle Reasons" — are read too). Indentation makes the tree:
// "Label : value" lines, and section lines without a colon.
import type { ClockSet, GpuInfo, GpuInfoCardResult, GpuProcess, SupportedMemClock } from '../../electron/core/telemetry/nvidiaSmi/card.js';
import { throttleMaskFromFlags } from '../../electron/core/telemetry/nvidiaSmi/throttle.js';
import { parseFlag, parseInteger, parseNumber, parsePstate, parseText } from '../../electron/core/telemetry/nvidiaSmi/values.js';

export interface TextNode {
  label: string;
  /** The text after " : ", or null for a section heading. */
  value: string | null;
  children: TextNode[];
}

/** The indentation tree of `-q` output; lines deeper than the line before become its children. */
export function parseQueryTextTree(text: string): TextNode[] {
  const roots: TextNode[] = [];
  const open: { indent: number; node: TextNode }[] = [];
  for (const raw of text.split(/\r?\n/u)) {
    if (raw.trim() === '' || /^=+\s*NVSMI LOG\s*=+$/u.test(raw.trim())) continue;
    const indent = raw.length - raw.trimStart().length;
    // "Label<spaces>: value" — the label ends at the first " :" (values hold colons: bus ids).
    const match = /^(\S(?:.*?\S)?)\s+:(?: (.*))?$/u.exec(raw.trim()) ?? /^(\S(?:.*?\S)?)\s*:$/u.exec(raw.trim());
    const node: TextNode = match ? { label: match[1]!, value: (match[2] ?? '').trim(), children: [] } : { label: raw.trim(), value: null, children: [] };
    while (open.length > 0 && open[open.length - 1]!.indent >= indent) open.pop();
    const parent = open[open.length - 1];
    if (parent) parent.node.children.push(node);
    else roots.push(node);
    open.push({ indent, node });
  }
  return roots;
}

const find = (nodes: readonly TextNode[] | undefined, ...path: string[]): TextNode | null => {
  let level = nodes;
  let found: TextNode | null = null;
  for (const label of path) {
    found = level?.find((n) => n.label.toLowerCase() === label.toLowerCase()) ?? null;
    if (!found) return null;
    level = found.children;
  }
  return found;
};
const value = (nodes: readonly TextNode[] | undefined, ...path: string[]): string | null => find(nodes, ...path)?.value ?? null;
const int = (nodes: readonly TextNode[] | undefined, ...path: string[]): number | null => {
  const v = value(nodes, ...path);
  return v === null ? null : parseInteger(v);
};
const num = (nodes: readonly TextNode[] | undefined, ...path: string[]): number | null => {
  const v = value(nodes, ...path);
  return v === null ? null : parseNumber(v);
};
const str = (nodes: readonly TextNode[] | undefined, ...path: string[]): string | null => {
  const v = value(nodes, ...path);
  return v === null ? null : parseText(v);
};
const flag = (nodes: readonly TextNode[] | undefined, ...path: string[]): boolean | null => {
  const v = value(nodes, ...path);
  return v === null ? null : parseFlag(v);
};
const firstOf = (...values: (number | null)[]): number | null => values.find((v) => v !== null) ?? null;
const childrenOf = (node: TextNode | null): TextNode[] => node?.children ?? [];

function clockSet(section: TextNode | null): ClockSet {
  const c = childrenOf(section);
  return { graphicsMHz: int(c, 'Graphics'), smMHz: int(c, 'SM'), memMHz: int(c, 'Memory'), videoMHz: int(c, 'Video') };
}

/** Every descendant, depth first: the HW thermal / power-brake reasons nest under "HW Slowdown". */
function descendants(nodes: readonly TextNode[]): TextNode[] {
  return nodes.flatMap((n) => [n, ...descendants(n.children)]);
}

function processes(section: TextNode | null): GpuProcess[] {
  // Entries are flat siblings ("GPU instance ID", "Compute instance ID", "Process ID") with Type,
  // Name and Used GPU Memory nested under "Process ID"; "Processes : None" has no children.
  const result: GpuProcess[] = [];
  let gpuInstanceId: number | null = null;
  let computeInstanceId: number | null = null;
  for (const node of childrenOf(section)) {
    const label = node.label.toLowerCase();
    if (label === 'gpu instance id') gpuInstanceId = parseInteger(node.value ?? '');
    else if (label === 'compute instance id') computeInstanceId = parseInteger(node.value ?? '');
    else if (label === 'process id') {
      const pid = parseInteger(node.value ?? '');
      if (pid !== null) {
        result.push({
          pid,
          type: str(node.children, 'Type'),
          name: str(node.children, 'Name'),
          usedMemoryMiB: int(node.children, 'Used GPU Memory'),
          gpuInstanceId,
          computeInstanceId,
        });
      }
      gpuInstanceId = null;
      computeInstanceId = null;
    }
  }
  return result;
}

/** `-q -d SUPPORTED_CLOCKS`: "Memory : 10501 MHz" with "Graphics : ..." lines nested under it. */
function supportedClocks(section: TextNode | null): SupportedMemClock[] | null {
  if (!section || section.children.length === 0) return null;
  const result: SupportedMemClock[] = [];
  for (const mem of section.children) {
    const memMHz = parseInteger(mem.value ?? '');
    if (memMHz === null) continue;
    const graphicsMHz = mem.children.map((g) => parseInteger(g.value ?? '')).filter((v): v is number => v !== null);
    result.push({ memMHz, graphicsMHz });
  }
  return result.length > 0 ? result : null;
}

function gpuInfo(section: TextNode, index: number): GpuInfo {
  const g = section.children;
  const link = childrenOf(find(g, 'PCI', 'GPU Link Info'));
  const temperature = childrenOf(find(g, 'Temperature'));
  const power = childrenOf(find(g, 'GPU Power Readings') ?? find(g, 'Power Readings'));
  const reasons = find(g, 'Clocks Event Reasons') ?? find(g, 'Clocks Throttle Reasons') ?? find(g, 'Clocks Throttle Reasons Active');
  return {
    index,
    busId: section.label.replace(/^GPU\s+/u, '').trim() || str(g, 'PCI', 'Bus Id'),
    name: str(g, 'Product Name'),
    brand: str(g, 'Product Brand'),
    architecture: str(g, 'Product Architecture'),
    uuid: str(g, 'GPU UUID'),
    serial: str(g, 'Serial Number'),
    vbiosVersion: str(g, 'VBIOS Version'),
    persistenceMode: flag(g, 'Persistence Mode'),
    migMode: flag(g, 'MIG Mode', 'Current'),
    migDeviceCount: g.filter((n) => n.label === 'MIG Device').length,
    eccMode: flag(g, 'ECC Mode', 'Current'),
    eccModePending: flag(g, 'ECC Mode', 'Pending'),
    computeMode: str(g, 'Compute Mode'),
    pstate: parsePstate(value(g, 'Performance State') ?? ''),
    fanPercent: int(g, 'Fan Speed'),
    pcie: {
      genMax: int(link, 'PCIe Generation', 'Max'),
      genCurrent: int(link, 'PCIe Generation', 'Current'),
      genDeviceMax: int(link, 'PCIe Generation', 'Device Max'),
      genHostMax: int(link, 'PCIe Generation', 'Host Max'),
      widthMax: int(link, 'Link Width', 'Max'),
      widthCurrent: int(link, 'Link Width', 'Current'),
    },
    memory: {
      totalMiB: int(g, 'FB Memory Usage', 'Total'),
      reservedMiB: int(g, 'FB Memory Usage', 'Reserved'),
      usedMiB: int(g, 'FB Memory Usage', 'Used'),
      freeMiB: int(g, 'FB Memory Usage', 'Free'),
    },
    utilization: { gpuPercent: int(g, 'Utilization', 'GPU'), memoryPercent: int(g, 'Utilization', 'Memory') },
    temperature: {
      gpuC: int(temperature, 'GPU Current Temp'),
      memoryC: int(temperature, 'Memory Current Temp'),
      targetC: int(temperature, 'GPU Target Temperature'),
      slowdownC: int(temperature, 'GPU Slowdown Temp'),
      shutdownC: int(temperature, 'GPU Shutdown Temp'),
      maxOperatingC: int(temperature, 'GPU Max Operating Temp'),
    },
    power: {
      drawW: firstOf(num(power, 'Power Draw'), num(power, 'Average Power Draw'), num(power, 'Instantaneous Power Draw')),
      averageW: num(power, 'Average Power Draw'),
      instantW: num(power, 'Instantaneous Power Draw'),
      limitW: firstOf(num(power, 'Enforced Power Limit'), num(power, 'Current Power Limit')),
      requestedLimitW: firstOf(num(power, 'Power Limit'), num(power, 'Requested Power Limit')),
      defaultLimitW: num(power, 'Default Power Limit'),
      minLimitW: num(power, 'Min Power Limit'),
      maxLimitW: num(power, 'Max Power Limit'),
    },
    clocks: {
      current: clockSet(find(g, 'Clocks')),
      max: clockSet(find(g, 'Max Clocks')),
      applications: { graphicsMHz: int(g, 'Applications Clocks', 'Graphics'), memMHz: int(g, 'Applications Clocks', 'Memory') },
      defaultApplications: {
        graphicsMHz: int(g, 'Default Applications Clocks', 'Graphics'),
        memMHz: int(g, 'Default Applications Clocks', 'Memory'),
      },
      maxCustomerBoostMHz: int(g, 'Max Customer Boost Clocks', 'Graphics'),
    },
    throttleReasons: reasons
      ? throttleMaskFromFlags(descendants(reasons.children).map((n) => [n.label, n.value === null ? null : parseFlag(n.value)] as const))
      : null,
    supportedClocks: supportedClocks(find(g, 'Supported Clocks')),
    processes: processes(find(g, 'Processes')),
  };
}

/** Parses `nvidia-smi -q` text into the same card as the XML form (no supported clocks unless `-d SUPPORTED_CLOCKS`). */
export function parseNvidiaSmiQueryText(text: string): GpuInfoCardResult {
  const roots = parseQueryTextTree(text);
  const gpus = roots.filter((n) => n.value === null && /^GPU\s+[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]$/u.test(n.label));
  if (gpus.length === 0 && value(roots, 'Driver Version') === null) return { ok: false, error: 'not nvidia-smi -q output: no "Driver Version" and no GPU section' };
  return {
    ok: true,
    card: {
      source: 'text',
      timestamp: str(roots, 'Timestamp'),
      driverVersion: str(roots, 'Driver Version'),
      cudaVersion: str(roots, 'CUDA Version'),
      attachedGpus: int(roots, 'Attached GPUs'),
      gpus: gpus.map(gpuInfo),
    },
  };
}
