// The header's GPU button and its panel: what `nvidia-smi -q -x` says about the driver and each GPU, or why nothing.
import { useRef, useState } from 'react';
import type { MethodOutput } from '../../../electron/shared/api.js';
import { useBridge } from '../bridge/context.js';
import { errorMessage } from '../shared/format.js';
import { describeValue } from '../../../electron/shared/fingerprintText.js';
import { viewHash } from '../route.js';
import '../shared/gpuSettings/gpu.css';

type GpuInfoAnswer = MethodOutput<'gpu.info'>;
type Loose = Readonly<Record<string, unknown>>;

/** The card crosses the contract as an open record; each read here checks what it finds. */
function field(from: unknown, ...path: string[]): unknown {
  let at: unknown = from;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return null;
    at = (at as Loose)[key];
  }
  return at ?? null;
}

function num(from: unknown, ...path: string[]): number | null {
  const value = field(from, ...path);
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function text(value: unknown): string {
  return describeValue(value) ?? '–';
}

function unit(value: number | null, suffix: string): string {
  return value === null ? '–' : `${value.toLocaleString()} ${suffix}`;
}

function clocks(set: unknown): string {
  const parts = [
    ['graphics', num(set, 'graphicsMHz')],
    ['SM', num(set, 'smMHz')],
    ['memory', num(set, 'memMHz')],
  ] as const;
  const shown = parts.filter(([, mhz]) => mhz !== null).map(([name, mhz]) => `${name} ${mhz!.toLocaleString()}`);
  return shown.length > 0 ? `${shown.join(' · ')} MHz` : '–';
}

function GpuCard({ gpu }: { gpu: unknown }) {
  const pcieGen = num(gpu, 'pcie', 'genCurrent');
  const pcieWidth = num(gpu, 'pcie', 'widthCurrent');
  const pcieMax = [num(gpu, 'pcie', 'genMax'), num(gpu, 'pcie', 'widthMax')];
  const memTotal = num(gpu, 'memory', 'totalMiB');
  const memUsed = num(gpu, 'memory', 'usedMiB');
  const processes = Array.isArray(field(gpu, 'processes')) ? (field(gpu, 'processes') as unknown[]) : [];
  const rows: [string, string][] = [
    ['UUID', text(field(gpu, 'uuid'))],
    ['VBIOS', text(field(gpu, 'vbiosVersion'))],
    ['Bus', text(field(gpu, 'busId'))],
    ['VRAM', memTotal === null ? '–' : `${unit(memTotal, 'MiB')} total${memUsed === null ? '' : ` · ${memUsed.toLocaleString()} MiB used`}`],
    ['Persistence mode', text(field(gpu, 'persistenceMode'))],
    [
      'PCIe',
      pcieGen === null && pcieWidth === null
        ? '–'
        : `Gen ${pcieGen ?? '?'} x${pcieWidth ?? '?'}` + (pcieMax[0] !== null ? ` (max Gen ${pcieMax[0]} x${pcieMax[1] ?? '?'})` : ''),
    ],
    [
      'Power limit',
      `${unit(num(gpu, 'power', 'limitW'), 'W')} · default ${unit(num(gpu, 'power', 'defaultLimitW'), 'W')} · range ${unit(
        num(gpu, 'power', 'minLimitW'),
        'W',
      )} – ${unit(num(gpu, 'power', 'maxLimitW'), 'W')}`,
    ],
    ['Power draw', unit(num(gpu, 'power', 'drawW'), 'W')],
    ['Clocks now', clocks(field(gpu, 'clocks', 'current'))],
    ['Clocks max', clocks(field(gpu, 'clocks', 'max'))],
    ['Application clocks', clocks(field(gpu, 'clocks', 'applications'))],
    [
      'Temperature',
      `${unit(num(gpu, 'temperature', 'gpuC'), '°C')}` +
        (num(gpu, 'temperature', 'slowdownC') !== null ? ` · slowdown at ${unit(num(gpu, 'temperature', 'slowdownC'), '°C')}` : ''),
    ],
    ['Performance state', num(gpu, 'pstate') === null ? '–' : `P${num(gpu, 'pstate')}`],
  ];
  return (
    <section className="gpu-card" data-testid="gpu-card">
      <h3>
        <span className="gpu-index">GPU {text(field(gpu, 'index'))}</span> {text(field(gpu, 'name'))}
      </h3>
      <dl className="gpu-facts">
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <h4>Processes</h4>
      {processes.length === 0 ? (
        <p className="hint">No processes on this GPU.</p>
      ) : (
        <table className="gpu-processes" data-testid="gpu-processes">
          <thead>
            <tr>
              <th>PID</th>
              <th>Type</th>
              <th>Name</th>
              <th>VRAM</th>
            </tr>
          </thead>
          <tbody>
            {processes.map((process, i) => (
              <tr key={`${num(process, 'pid') ?? i}-${i}`}>
                <td>{text(field(process, 'pid'))}</td>
                <td>{text(field(process, 'type'))}</td>
                <td className="mono">{text(field(process, 'name'))}</td>
                <td>{unit(num(process, 'usedMemoryMiB'), 'MiB')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function GpuInfoBody({ answer }: { answer: GpuInfoAnswer }) {
  if (!answer.available || answer.card === null) {
    return (
      <div className="gpu-unavailable" role="status">
        <p className="gpu-unavailable-title">No NVIDIA GPU found: host telemetry only</p>
        {answer.reason && <p className="hint">{answer.reason}</p>}
      </div>
    );
  }
  const card = answer.card;
  const gpus = Array.isArray(card.gpus) ? (card.gpus as unknown[]) : [];
  return (
    <>
      <dl className="gpu-facts driver">
        <div>
          <dt>Driver</dt>
          <dd data-testid="gpu-driver">{text(card.driverVersion)}</dd>
        </div>
        <div>
          <dt>CUDA</dt>
          <dd>{text(card.cudaVersion)}</dd>
        </div>
        <div>
          <dt>GPUs</dt>
          <dd>{gpus.length}</dd>
        </div>
      </dl>
      {gpus.map((gpu, i) => (
        <GpuCard key={i} gpu={gpu} />
      ))}
    </>
  );
}

export function GpuInfo() {
  const { api } = useBridge();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const [answer, setAnswer] = useState<GpuInfoAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  // Asked afresh on every open: clocks, temperature and processes change by the second.
  const load = async () => {
    setLoading(true);
    setError(null);
    try {
      setAnswer(await api['gpu.info']({}));
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setLoading(false);
    }
  };
  const open = () => {
    dialogRef.current?.showModal();
    void load();
  };

  return (
    <>
      <button
        type="button"
        className="button small"
        data-testid="gpu-info-button"
        onClick={open}
        title="What nvidia-smi says about this machine's GPUs (a look; changes nothing)"
      >
        GPU status
      </button>
      <dialog ref={dialogRef} className="dialog gpu-dialog" aria-labelledby="gpu-info-title">
        <div className="dialog-title-row">
          <h2 id="gpu-info-title">GPU status</h2>
          <span className="spacer" />
          <button type="button" className="button small" data-testid="gpu-info-refresh" disabled={loading} onClick={() => void load()}>
            {loading ? 'Reading…' : 'Refresh'}
          </button>
          <button type="button" className="button small" onClick={() => dialogRef.current?.close()}>
            Close
          </button>
        </div>
        <p className="hint gpu-info-role">
          What nvidia-smi says now; this reads only. Persistence, clock locks and the power limit are changed in{' '}
          <a href={viewHash({ kind: 'gpu' })} data-testid="gpu-info-to-control" onClick={() => dialogRef.current?.close()}>
            GPU control
          </a>
          .
        </p>
        <div className="gpu-info" data-testid="gpu-info">
          {error && (
            <p className="inline-error" role="alert">
              Could not read the GPU info: {error}
            </p>
          )}
          {!error && answer === null && <p className="hint">Asking nvidia-smi…</p>}
          {answer && <GpuInfoBody answer={answer} />}
        </div>
      </dialog>
    </>
  );
}
