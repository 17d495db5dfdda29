// The environment a run ran in (GPU, driver, CUDA, VBIOS, PCIe, power limit, CPU, kernel, Python, PyTorch), folded.
import { describeFact, FINGERPRINT_LABELS, fingerprintHeadline } from '../../../electron/shared/fingerprintText.js';
import './RunView.css';

export function RunFingerprint({ fingerprint }: { fingerprint: Readonly<Record<string, unknown>> | null }) {
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
  const rows = [...known, ...others].map((key) => [key, describeFact(key, fingerprint[key], fingerprint)] as const).filter(([, text]) => text !== null);
  return (
    <details className="run-fingerprint" data-testid="run-fingerprint">
      <summary>
        <span className="fingerprint-title">Environment</span>
        <span className="fingerprint-headline">{fingerprintHeadline(fingerprint)}</span>
      </summary>
      <dl className="fingerprint-grid">
        {rows.map(([key, text]) => (
          <div key={key} data-key={key}>
            <dt>{FINGERPRINT_LABELS[key] ?? key}</dt>
            <dd>{text}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
