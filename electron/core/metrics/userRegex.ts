// A workload's own metric pattern: a regular expression whose named groups are metric values.
import { realTimeout } from '../clock.js';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { stripAnsi } from '../../shared/ansi.js';
import type { MetricSample } from './samples.js';

export interface CompiledUserRegex {
  regex: RegExp;
  groups: string[];
}

export class UserRegexError extends Error {
  override name = 'UserRegexError';
}

/**
 * V8 can run a pattern in linear time (no backtracking) when it has no back-references, lookaheads or
 * Unicode-mode syntax (lookbehinds are linear since the V8 of Node 24). With these flags a pattern that starts to backtrack catastrophically, like
 * `(a+)+$` on a line of a's, is handed to that engine after a bounded number of backtracks: one line
 * costs milliseconds instead of minutes, and the output thread that parses a run keeps up. Flags are
 * process-wide (workers included) and set once, before the first person's pattern is compiled.
 */
let linearEngineReady = false;
function enableLinearRegexEngine(): void {
  if (linearEngineReady) return;
  v8.setFlagsFromString('--enable-experimental-regexp-engine');
  v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  linearEngineReady = true;
}

/**
 * Named groups become metrics; `step` is the step. A pattern without named groups is refused, and so
 * is one that only the backtracking engine can run: on an unlucky line it may take exponential time,
 * and it runs on every line of a live run.
 */
export function compileUserRegex(pattern: string): CompiledUserRegex {
  enableLinearRegexEngine();
  // Outside Unicode mode these escapes would quietly match the letters "p{L}"; say so instead.
  if (/\\[pPu]\{/u.test(pattern)) {
    throw new UserRegexError('\\p{…} and \\u{…} escapes are not supported in metric patterns: write the characters or a class like [A-Za-z] instead');
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (error) {
    throw new UserRegexError(`not a valid regular expression: ${(error as Error).message}`);
  }
  try {
    // `l` (linear) is V8's own flag, which the lint rule does not know of.
    // eslint-disable-next-line no-invalid-regexp
    new RegExp(pattern, 'l');
  } catch {
    throw new UserRegexError(
      'this pattern cannot run in linear time, and on an unlucky line it could take minutes and stall recording. ' +
        'Back-references (\\1, \\k<name>), lookaheads ((?=…), (?!…)) and very large counts ({1000,}) are the usual causes: ' +
        'match the text around the number instead, e.g. "eval_loss: (?<eval_loss>[\\d.]+)"',
    );
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
  return valuesFromGroups(match.groups);
}

/** A match's named groups as a step and metric values, or null when none reads as a number. */
function valuesFromGroups(groups: Record<string, string | undefined>): { step: number | null; values: Record<string, number> } | null {
  let step: number | null = null;
  const values: Record<string, number> = {};
  for (const [name, text] of Object.entries(groups)) {
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

/** The pattern compiled and the text in plain lines, or the pattern's error as a test result. */
function prepareTest(pattern: string, text: string): { compiled: CompiledUserRegex; lines: string[] } | RegexTestResult {
  try {
    return { compiled: compileUserRegex(pattern), lines: stripAnsi(text).split(/\r\n|\r|\n/u) };
  } catch (error) {
    return { error: (error as Error).message, groups: [], matches: [], matchCount: 0 };
  }
}

/** The UI's live test of a pattern against a stored or pasted log (on this thread: for trusted callers and tests). */
export function testUserRegex(pattern: string, text: string): RegexTestResult {
  const prepared = prepareTest(pattern, text);
  if ('error' in prepared) return prepared;
  const { compiled, lines } = prepared;
  const groupsByLine: Array<[number, Record<string, string | undefined>]> = [];
  lines.forEach((line, index) => {
    const match = compiled.regex.exec(line);
    if (match?.groups) groupsByLine.push([index, match.groups]);
  });
  return testResult(compiled, lines, groupsByLine);
}

export interface RegexTestResult {
  error: string | null;
  groups: string[];
  matches: Array<{ line: number; text: string; values: Record<string, number | 'nan' | 'inf' | '-inf'> }>;
  matchCount: number;
}

/** How long the tester may run a person's pattern: a pattern that backtracks catastrophically, e.g. `(a+)+$`, never ends. */
export const REGEX_TEST_TIME_LIMIT_MS = 2_000;

/**
 * Matching only, in a thread of its own: plain JavaScript (no import), so it runs the same from source, the
 * compiled CLI and the Electron bundle. It answers the named groups of each matching line.
 */
const MATCHER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.pattern);
const found = [];
workerData.lines.forEach((line, index) => {
  const match = regex.exec(line);
  if (match && match.groups) found.push([index, { ...match.groups }]);
});
parentPort.postMessage(found);
`;

/**
 * The UI's live test, with the pattern run in a worker thread that is ended after `timeLimitMs`, so a pattern
 * that backtracks without end answers with an error instead of freezing the engine (and the runs it records).
 */
export async function testUserRegexSafely(pattern: string, text: string, timeLimitMs = REGEX_TEST_TIME_LIMIT_MS): Promise<RegexTestResult> {
  const prepared = prepareTest(pattern, text);
  if ('error' in prepared) return prepared;
  const { compiled, lines } = prepared;
  const worker = new Worker(MATCHER_SOURCE, { eval: true, workerData: { pattern, lines } });
  try {
    const found = await new Promise<Array<[number, Record<string, string | undefined>]> | null>((resolve, reject) => {
      const timer = realTimeout(() => resolve(null), timeLimitMs);
      worker.once('message', (message: Array<[number, Record<string, string | undefined>]>) => {
        timer.cancel();
        resolve(message);
      });
      worker.once('error', (error) => {
        timer.cancel();
        reject(error);
      });
    });
    if (found === null) {
      return {
        error: `the pattern did not finish within ${timeLimitMs / 1000} s on this log: it backtracks too much (nested repeats like (a+)+ or (\\d+)*). Anchor it or make the repeats specific.`,
        groups: compiled.groups,
        matches: [],
        matchCount: 0,
      };
    }
    return testResult(compiled, lines, found);
  } finally {
    void worker.terminate();
  }
}

function testResult(compiled: CompiledUserRegex, lines: string[], groupsByLine: Array<[number, Record<string, string | undefined>]>): RegexTestResult {
  const matches: RegexTestResult['matches'] = [];
  let matchCount = 0;
  for (const [index, groups] of groupsByLine) {
    const matched = valuesFromGroups(groups);
    if (!matched) continue;
    matchCount++;
    if (matches.length >= TEST_MATCHES_SHOWN) continue;
    const values: Record<string, number | 'nan' | 'inf' | '-inf'> = {};
    if (matched.step !== null) values.step = matched.step;
    for (const [name, value] of Object.entries(matched.values)) {
      values[name] = Number.isNaN(value) ? 'nan' : value === Infinity ? 'inf' : value === -Infinity ? '-inf' : value;
    }
    matches.push({ line: index + 1, text: lines[index]!.slice(0, 500), values });
  }
  return { error: null, groups: compiled.groups, matches, matchCount };
}
