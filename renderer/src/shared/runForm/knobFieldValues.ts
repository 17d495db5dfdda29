// The Knobs section's fields as typed, turned into a run's knobs or a sweep's knob variables (or what is wrong with them).
import { checkKnob, KNOB_OFF, KNOB_PREFIX } from '../../../../electron/shared/knobs.js';

export function splitKnobValues(text: string): string[] {
  return text
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

/** A run's knobs from the fields: each set one, checked; the first problem says which knob and its valid values. */
export function runKnobsFromFields(values: Record<string, string>): { ok: true; knobs: Record<string, string> } | { ok: false; error: string } {
  const knobs: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === '' || value === KNOB_OFF) continue;
    const checked = checkKnob(name, value);
    if (!checked.ok) return { ok: false, error: `knob ${checked.error}` };
    knobs[name] = checked.value;
  }
  return { ok: true, knobs };
}

/** A sweep's knobs from the fields: a list of values varies the knob (`knob.NAME`), a single one is shared by every config. */
export function sweepKnobsFromFields(
  values: Record<string, string>,
): { ok: true; vary: Array<{ name: string; values: string[] }>; shared: Record<string, string> } | { ok: false; error: string } {
  const vary: Array<{ name: string; values: string[] }> = [];
  const shared: Record<string, string> = {};
  for (const [name, text] of Object.entries(values)) {
    const list = splitKnobValues(text);
    const checked: string[] = [];
    for (const value of list) {
      const result = checkKnob(name, value);
      if (!result.ok) return { ok: false, error: `knob ${result.error}` };
      checked.push(result.value);
    }
    if (checked.length > 1) vary.push({ name: `${KNOB_PREFIX}${name}`, values: checked });
    else if (checked.length === 1 && checked[0] !== KNOB_OFF) shared[`${KNOB_PREFIX}${name}`] = checked[0]!;
  }
  return { ok: true, vary, shared };
}
