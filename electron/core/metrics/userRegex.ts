// A workload's own metric pattern: a regular expression whose named groups are metric values.
import { stripAnsi } from '../../shared/ansi.js';
import type { MetricSample } from './samples.js';

export interface CompiledUserRegex {
  regex: RegExp;
  groups: string[];
}

export class UserRegexError extends Error {
  override name = 'UserRegexError';
}

/** Named groups become metrics; `step` is the step. A pattern without named groups is refused. */
export function compileUserRegex(pattern: string): CompiledUserRegex {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, 'u');
  } catch (error) {
    throw new UserRegexError(`not a valid regular expression: ${(error as Error).message}`);
  }
  const groups = [...pattern.matchAll(/\(\?<([A-Za-z_][A-Za-z0-9_]*)>/gu)].map((m) => m[1]!);
  if (groups.length === 0) throw new UserRegexError('name at least one group, e.g. (?<loss>[\\d.]+): each named group is a metric');
  return { regex, groups };
}

/** A group's text as a number: plain, scientific, nan/inf, with thousands separators. */
export function regexNumber(text: string): number | null {
  const cleaned = text.trim().replace(/,(?=\d{3}\b)/gu, '');
  if (/^[-+]?nan$/iu.test(cleaned)) return Number.NaN;
  if (/^\+?inf(inity)?$/iu.test(cleaned)) return Number.POSITIVE_INFINITY;
  if (/^-inf(inity)?$/iu.test(cleaned)) return Number.NEGATIVE_INFINITY;
  if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/u.test(cleaned)) return null;
  return Number(cleaned);
}

/** The values a line gives, or null when it does not match. */
export function matchUserRegex(compiled: CompiledUserRegex, line: string): { step: number | null; values: Record<string, number> } | null {
  const match = compiled.regex.exec(line);
  if (!match?.groups) return null;
  let step: number | null = null;
  const values: Record<string, number> = {};
  for (const [name, text] of Object.entries(match.groups)) {
    if (text === undefined) continue;
    const value = regexNumber(text);
    if (value === null) continue;
    if (name === 'step') step = Math.round(value);
    else values[name] = value;
  }
  return Object.keys(values).length > 0 || step !== null ? { step, values } : null;
}

export function userRegexSamples(compiled: CompiledUserRegex, line: string, tMs: number): MetricSample[] {
  const matched = matchUserRegex(compiled, line);
  if (!matched) return [];
  return Object.entries(matched.values).map(([name, value]) => ({
    step: matched.step,
    tMs,
    name,
    value,
    source: 'text' as const,
    kind: name.startsWith('eval_') ? ('eval' as const) : ('train' as const),
  }));
}

/** Most matching lines a test returns; the count covers them all. */
const TEST_MATCHES_SHOWN = 50;

/** The UI's live test of a pattern against a stored or pasted log. */
export function testUserRegex(pattern: string, text: string) {
  let compiled: CompiledUserRegex;
  try {
    compiled = compileUserRegex(pattern);
  } catch (error) {
    return { error: (error as Error).message, groups: [], matches: [], matchCount: 0 };
  }
  const matches: Array<{ line: number; text: string; values: Record<string, number | 'nan' | 'inf' | '-inf'> }> = [];
  let matchCount = 0;
  const lines = stripAnsi(text).split(/\r\n|\r|\n/u);
  lines.forEach((line, index) => {
    const matched = matchUserRegex(compiled, line);
    if (!matched) return;
    matchCount++;
    if (matches.length >= TEST_MATCHES_SHOWN) return;
    const values: Record<string, number | 'nan' | 'inf' | '-inf'> = {};
    if (matched.step !== null) values.step = matched.step;
    for (const [name, value] of Object.entries(matched.values)) {
      values[name] = Number.isNaN(value) ? 'nan' : value === Infinity ? 'inf' : value === -Infinity ? '-inf' : value;
    }
    matches.push({ line: index + 1, text: line.slice(0, 500), values });
  });
  return { error: null, groups: compiled.groups, matches, matchCount };
}
