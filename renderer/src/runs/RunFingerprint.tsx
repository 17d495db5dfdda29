// The environment a run ran in (GPU, driver, CUDA, VBIOS, PCIe, power limit, CPU, kernel, Python, PyTorch), folded,
// with what the engine noted while recording it (why GPU data is missing, parsing switched off, processes left running).
import type { Run } from '../../../electron/shared/api.js';
import { describeFact, FINGERPRINT_LABELS, fingerprintHeadline } from '../../../electron/shared/fingerprintText.js';
import './RunView.css';

type RecordingFacts = Pick<Run, 'fingerprint' | 'telemetryNotes' | 'parsingNotes' | 'survivorPids'>;

/** The recording's rows, after the environment's: each kind of note as one line, the survivors' pids. */
function recordingRows(run: RecordingFacts): Array<readonly [key: string, label: string, text: string]> {
  const rows: Array<readonly [string, string, string]> = [];
  if (run.telemetryNotes.length > 0) rows.push(['telemetryNotes', 'Telemetry', run.telemetryNotes.join('; ')]);
  if (run.parsingNotes.length > 0) rows.push(['parsingNotes', 'Parsing', run.parsingNotes.join('; ')]);
  if (run.survivorPids.length > 0) rows.push(['survivorPids', 'Left running', `pids ${run.survivorPids.join(', ')}`]);
  return rows;
}

export function RunFingerprint({ run }: { run: RecordingFacts }) {
  const { fingerprint } = run;
  if (fingerprint === null) {
    // A running run's environment is recorded a moment after it starts; the row keeps its place meanwhile, so the
    // header (and the terminal under it) keeps its height when it comes.
    return (
      <p className="run-fingerprint pending" data-testid="run-fingerprint">
        Environment: being recorded…
      </p>
    );
  }
  const known = Object.keys(FINGERPRINT_LABELS).filter((key) => key in fingerprint);
  const others = Object.keys(fingerprint)
    .filter((key) => !(key in FINGERPRINT_LABELS))
    .sort();
  const facts = [...known, ...others]
    .map((key) => [key, FINGERPRINT_LABELS[key] ?? key, describeFact(key, fingerprint[key], fingerprint)] as const)
    .filter((row): row is readonly [string, string, string] => row[2] !== null);
  return (
    <details className="run-fingerprint" data-testid="run-fingerprint">
      <summary>
        <span className="fingerprint-title">Environment</span>
        <span className="fingerprint-headline">{fingerprintHeadline(fingerprint)}</span>
      </summary>
      <dl className="fingerprint-grid">
        {[...facts, ...recordingRows(run)].map(([key, label, text]) => (
          <div key={key} data-key={key}>
            <dt>{label}</dt>
            <dd>{text}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
