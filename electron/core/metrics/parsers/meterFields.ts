// Reads "meter" fields as PyTorch reference scripts print them: `Loss 0.2456 (0.7992)`, `Time: 9.575s,  13.37/s  (0.470s, 272.39/s)`.
import { parseClockSeconds, parseNumber } from '../text/numbers.js';
import { averageName, canonicalName } from './names.js';
import { evalValueName } from './values.js';

export interface MeterField {
  /** The label as printed (`Loss`, `Acc@1`, `max mem`, `img/s`). */
  label: string;
  /** The current (or windowed) value; a clock (`5:20:32`) is in seconds. */
  value: number;
  /** The running average in parentheses, if printed. */
  average: number | null;
  /** timm prints a per-second rate beside its times: `9.575s,   13.37/s`. */
  rate: number | null;
  averageRate: number | null;
}

const NUMBER = String.raw`[-+]?(?:\d+:\d{2}(?::\d{2}(?:\.\d+)?)?|\d*\.?\d+(?:[eE][-+]?\d+)?|nan|NaN|inf|Inf)`;
/**
 * A label of one or two words, an optional colon, the value (optionally with `s` and a rate), and
 * an optional `(average)` of the same shape. Labels start with a letter, so the numbers of a
 * header such as `[  72/5005]` are never read as fields.
 */
const FIELD = new RegExp(
  String.raw`([A-Za-z][\w@/]*(?: [A-Za-z][\w@/]*)?):?\s+(${NUMBER})s?(?:,\s+(${NUMBER})\/s)?` + String.raw`(?:\s+\(\s*(${NUMBER})s?(?:,\s+(${NUMBER})\/s)?\))?`,
  // No `i` flag (the cases of nan/inf are spelled out) and no `u`: see types.ts.
  'g',
);

function fieldNumber(text: string | undefined): number | null {
  if (text === undefined) return null;
  return text.includes(':') ? parseClockSeconds(text) : parseNumber(text);
}

/** Every `Label value (average)` field in the text, in order. */
export function readMeterFields(text: string): MeterField[] {
  const fields: MeterField[] = [];
  FIELD.lastIndex = 0;
  for (let match = FIELD.exec(text); match !== null; match = FIELD.exec(text)) {
    const value = fieldNumber(match[2]);
    if (value === null) continue;
    fields.push({
      label: match[1] ?? '',
      value,
      average: fieldNumber(match[4]),
      rate: fieldNumber(match[3]),
      averageRate: fieldNumber(match[5]),
    });
  }
  return fields;
}

/** How a family's labels map onto names: the name, and a factor from the printed unit. */
export interface MeterName {
  name: string;
  scale: number;
}

/**
 * Adds fields as values: each known label under its name (and `avg_` + name for the average),
 * labels the family does not know under their canonical snake_case name, unscaled. In an
 * evaluation record the names are the eval ones (`eval_loss`, `avg_eval_loss`).
 */
export function addMeterValues(
  into: Record<string, number>,
  fields: readonly MeterField[],
  names: Readonly<Record<string, MeterName>>,
  rateName: string | null,
  evaluation: boolean,
): void {
  const phase = evaluation ? evalValueName : (name: string): string => name;
  for (const field of fields) {
    const known = names[field.label.toLowerCase()];
    const name = phase(known?.name ?? canonicalName(field.label));
    const scale = known?.scale ?? 1;
    into[name] = field.value * scale;
    if (field.average !== null) into[averageName(name)] = field.average * scale;
    if (rateName === null) continue;
    const rate = phase(rateName);
    if (field.rate !== null) into[rate] = field.rate;
    if (field.averageRate !== null) into[averageName(rate)] = field.averageRate;
  }
}
