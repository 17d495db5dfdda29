// The GPU info card from `nvidia-smi -q -x`. Element names moved between drivers (checked against
// every `*.q.xml` capture, 418.43 to 595.58.03): `power_readings` became `gpu_power_readings`
// (R535), `power_limit`/`enforced_power_limit` became `requested_power_limit`/`current_power_limit`,
// `power_draw` split into `average_power_draw`/`instant_power_draw` (R590), and
// `clocks_throttle_reasons` became `clocks_event_reasons` (R535).
import type { ClockSet, GpuInfo, GpuInfoCardResult, GpuProcess, SupportedMemClock } from './card.js';
import { throttleMaskFromFlags } from './throttle.js';
import { parseFlag, parseInteger, parseNumber, parsePstate, parseText } from './values.js';
import { child, childrenNamed, parseXml, textAt, type XmlElement } from './xmlParser.js';

const num = (el: XmlElement | null, ...path: string[]): number | null => {
  const text = textAt(el, ...path);
  return text === null ? null : parseNumber(text);
};
const int = (el: XmlElement | null, ...path: string[]): number | null => {
  const text = textAt(el, ...path);
  return text === null ? null : parseInteger(text);
};
const str = (el: XmlElement | null, ...path: string[]): string | null => {
  const text = textAt(el, ...path);
  return text === null ? null : parseText(text);
};
const flag = (el: XmlElement | null, ...path: string[]): boolean | null => {
  const text = textAt(el, ...path);
  return text === null ? null : parseFlag(text);
};
const firstOf = (...values: (number | null)[]): number | null => values.find((v) => v !== null) ?? null;

function clockSet(el: XmlElement | null): ClockSet {
  return {
    graphicsMHz: int(el, 'graphics_clock'),
    smMHz: int(el, 'sm_clock'),
    memMHz: int(el, 'mem_clock'),
    videoMHz: int(el, 'video_clock'),
  };
}

function supportedClocks(gpu: XmlElement): SupportedMemClock[] | null {
  const list = child(gpu, 'supported_clocks');
  const mems = childrenNamed(list, 'supported_mem_clock');
  if (mems.length === 0) return null; // absent, or "N/A" (gtx-1660-ti.418.43)
  const result: SupportedMemClock[] = [];
  for (const mem of mems) {
    const memMHz = int(mem, 'value');
    if (memMHz === null) continue;
    const graphicsMHz = childrenNamed(mem, 'supported_graphics_clock')
      .map((g) => parseInteger(g.text))
      .filter((v): v is number => v !== null);
    result.push({ memMHz, graphicsMHz });
  }
  return result;
}

function processes(gpu: XmlElement): GpuProcess[] {
  const result: GpuProcess[] = [];
  for (const info of childrenNamed(child(gpu, 'processes'), 'process_info')) {
    const pid = int(info, 'pid');
    if (pid === null) continue;
    result.push({
      pid,
      type: str(info, 'type'),
      name: str(info, 'process_name'),
      usedMemoryMiB: int(info, 'used_memory'),
      gpuInstanceId: int(info, 'gpu_instance_id'),
      computeInstanceId: int(info, 'compute_instance_id'),
    });
  }
  return result;
}

function throttleMask(gpu: XmlElement): number | null {
  const reasons = child(gpu, 'clocks_event_reasons') ?? child(gpu, 'clocks_throttle_reasons');
  if (!reasons) return null;
  return throttleMaskFromFlags(reasons.children.map((c) => [c.name, parseFlag(c.text)] as const));
}

function gpuInfo(gpu: XmlElement, index: number): GpuInfo {
  // R535+: gpu_power_readings; before: power_readings. Both kept their min/max/default names.
  const power = child(gpu, 'gpu_power_readings') ?? child(gpu, 'power_readings');
  const link = child(child(gpu, 'pci'), 'pci_gpu_link_info');
  const temperature = child(gpu, 'temperature');
  return {
    index,
    busId: gpu.attributes.id ?? str(gpu, 'pci', 'pci_bus_id'),
    name: str(gpu, 'product_name'),
    brand: str(gpu, 'product_brand'),
    architecture: str(gpu, 'product_architecture'),
    uuid: str(gpu, 'uuid'),
    serial: str(gpu, 'serial'),
    vbiosVersion: str(gpu, 'vbios_version'),
    persistenceMode: flag(gpu, 'persistence_mode'),
    migMode: flag(gpu, 'mig_mode', 'current_mig'),
    migDeviceCount: childrenNamed(child(gpu, 'mig_devices'), 'mig_device').length,
    eccMode: flag(gpu, 'ecc_mode', 'current_ecc'),
    eccModePending: flag(gpu, 'ecc_mode', 'pending_ecc'),
    computeMode: str(gpu, 'compute_mode'),
    pstate: parsePstate(textAt(gpu, 'performance_state') ?? ''),
    fanPercent: int(gpu, 'fan_speed'),
    pcie: {
      genMax: int(link, 'pcie_gen', 'max_link_gen'),
      genCurrent: int(link, 'pcie_gen', 'current_link_gen'),
      genDeviceMax: int(link, 'pcie_gen', 'max_device_link_gen'),
      genHostMax: int(link, 'pcie_gen', 'max_host_link_gen'),
      widthMax: int(link, 'link_widths', 'max_link_width'),
      widthCurrent: int(link, 'link_widths', 'current_link_width'),
    },
    memory: {
      totalMiB: int(gpu, 'fb_memory_usage', 'total'),
      reservedMiB: int(gpu, 'fb_memory_usage', 'reserved'),
      usedMiB: int(gpu, 'fb_memory_usage', 'used'),
      freeMiB: int(gpu, 'fb_memory_usage', 'free'),
    },
    utilization: { gpuPercent: int(gpu, 'utilization', 'gpu_util'), memoryPercent: int(gpu, 'utilization', 'memory_util') },
    temperature: {
      gpuC: int(temperature, 'gpu_temp'),
      memoryC: int(temperature, 'memory_temp'),
      targetC: int(temperature, 'gpu_target_temperature'),
      slowdownC: int(temperature, 'gpu_temp_slow_threshold'),
      shutdownC: int(temperature, 'gpu_temp_max_threshold'),
      maxOperatingC: int(temperature, 'gpu_temp_max_gpu_threshold'),
    },
    power: {
      drawW: firstOf(num(power, 'power_draw'), num(power, 'average_power_draw'), num(power, 'instant_power_draw')),
      averageW: num(power, 'average_power_draw'),
      instantW: num(power, 'instant_power_draw'),
      limitW: firstOf(num(power, 'enforced_power_limit'), num(power, 'current_power_limit')),
      requestedLimitW: firstOf(num(power, 'power_limit'), num(power, 'requested_power_limit')),
      defaultLimitW: num(power, 'default_power_limit'),
      minLimitW: num(power, 'min_power_limit'),
      maxLimitW: num(power, 'max_power_limit'),
    },
    clocks: {
      current: clockSet(child(gpu, 'clocks')),
      max: clockSet(child(gpu, 'max_clocks')),
      applications: { graphicsMHz: int(gpu, 'applications_clocks', 'graphics_clock'), memMHz: int(gpu, 'applications_clocks', 'mem_clock') },
      defaultApplications: {
        graphicsMHz: int(gpu, 'default_applications_clocks', 'graphics_clock'),
        memMHz: int(gpu, 'default_applications_clocks', 'mem_clock'),
      },
      maxCustomerBoostMHz: int(gpu, 'max_customer_boost_clocks', 'graphics_clock'),
    },
    throttleReasons: throttleMask(gpu),
    supportedClocks: supportedClocks(gpu),
    processes: processes(gpu),
  };
}

/** Parses `nvidia-smi -q -x` output (any driver from the captures, one or many GPUs, MIG or not). */
export function parseNvidiaSmiXml(text: string): GpuInfoCardResult {
  const parsed = parseXml(text);
  if (!parsed.ok) return { ok: false, error: `not XML: ${parsed.error} (at offset ${parsed.offset})` };
  const log = parsed.root;
  if (log.name !== 'nvidia_smi_log') return { ok: false, error: `not nvidia-smi XML: the root is <${log.name}>` };
  return {
    ok: true,
    card: {
      timestamp: str(log, 'timestamp'),
      driverVersion: str(log, 'driver_version'),
      cudaVersion: str(log, 'cuda_version'),
      attachedGpus: int(log, 'attached_gpus'),
      gpus: childrenNamed(log, 'gpu').map(gpuInfo),
    },
  };
}
