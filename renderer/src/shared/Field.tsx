// The forms kit: a labelled field, a number with its unit, a duration, a command: one markup for every form in the app.
import type { ReactNode } from 'react';

export interface FieldProps {
  label: string;
  /** Said under the input: what the value does, or what empty means. */
  hint?: ReactNode;
  className?: string;
  children: ReactNode;
}

export function Field({ label, hint, className, children }: FieldProps) {
  return (
    <label className={className ? `field ${className}` : 'field'}>
      <span className="label">{label}</span>
      {children}
      {hint && <span className="hint">{hint}</span>}
    </label>
  );
}

export interface NumberWithUnitProps {
  testId: string;
  unit: string;
  value: string;
  onChange: (value: string) => void;
  /** Whole numbers (`numeric`) or parts of one (`decimal`): the keyboard a touch screen shows. */
  inputMode?: 'numeric' | 'decimal';
  placeholder?: string;
  disabled?: boolean;
}

export function NumberWithUnit({ testId, unit, value, onChange, inputMode = 'numeric', placeholder, disabled }: NumberWithUnitProps) {
  return (
    <span className="input-with-unit">
      <input
        data-testid={testId}
        inputMode={inputMode}
        placeholder={placeholder}
        value={value}
        disabled={disabled}
        onChange={(event) => onChange(event.target.value)}
      />
      <span className="unit">{unit}</span>
    </span>
  );
}

/** A duration: minutes in every form (shared/duration.ts reads it). */
export function MinutesInput(props: Omit<NumberWithUnitProps, 'unit' | 'inputMode'>) {
  return <NumberWithUnit {...props} unit="minutes" inputMode="decimal" />;
}

export interface CommandInputProps {
  testId: string;
  rows: number;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
}

/** A shell command as typed: monospace, no spelling marks. */
export function CommandInput({ testId, rows, placeholder, value, onChange }: CommandInputProps) {
  return (
    <textarea
      className="mono"
      data-testid={testId}
      rows={rows}
      spellCheck={false}
      placeholder={placeholder}
      value={value}
      onChange={(event) => onChange(event.target.value)}
    />
  );
}
