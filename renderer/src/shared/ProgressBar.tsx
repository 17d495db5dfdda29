// The one progress bar of every long action (an import, parsing again, a sweep's runs): how far, of how much, or only that it is under way.
import type { ReactNode } from 'react';
import { formatBytes } from './format.js';
import './progress.css';

interface ProgressBarProps {
  /** What is under way, for a person and a screen reader: "Importing train.log". */
  label: string;
  testId: string;
  /** Done so far and the whole, in the same unit; without them the bar says only that the work goes on. */
  value?: number;
  max?: number;
  /** How `value` and `max` read: bytes as KiB/MiB, or a count with its unit ("3 of 6 runs"). */
  unit?: 'bytes' | { one: string; many: string };
  /** A second line: what runs now, the time left. */
  detail?: string | null;
  /** How it went, in the status colours: a sweep that failed fills red, one paused or cancelled grey. Running by default. */
  tone?: 'running' | 'succeeded' | 'failed' | 'stopped' | 'interrupted';
  /** Lines under it that belong to the same action: what failed, a link to what runs now. */
  children?: ReactNode;
}

function amount(value: number, max: number, unit: ProgressBarProps['unit']): string {
  if (unit === 'bytes') return `${formatBytes(value)} of ${formatBytes(max)}`;
  if (unit) return `${value.toLocaleString()} of ${max.toLocaleString()} ${max === 1 ? unit.one : unit.many}`;
  return `${value.toLocaleString()} of ${max.toLocaleString()}`;
}

export function ProgressBar({ label, testId, value, max, unit, detail = null, tone = 'running', children }: ProgressBarProps) {
  const known = value !== undefined && max !== undefined && max > 0;
  const percent = known ? Math.min(100, Math.max(0, (100 * value) / max)) : null;
  return (
    <div className={`progress tone-${tone} ${known ? '' : 'indeterminate'}`} data-testid={testId}>
      <div
        className="progress-track"
        role="progressbar"
        aria-label={label}
        {...(known ? { 'aria-valuemin': 0, 'aria-valuemax': max, 'aria-valuenow': value } : {})}
      >
        <div className="progress-fill" style={percent === null ? undefined : { width: `${percent}%` }} />
      </div>
      <span className="progress-text" data-testid={`${testId}-text`}>
        {label}
        {known ? `: ${amount(value, max, unit)} (${Math.floor(percent!)} %)` : '…'}
      </span>
      {detail && (
        <span className="progress-detail" data-testid={`${testId}-detail`}>
          {detail}
        </span>
      )}
      {children}
    </div>
  );
}
