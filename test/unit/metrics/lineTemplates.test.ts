// Line templates read each line exactly as the parsers do: on every real log, on every plain-log case, and on
// sequences made to trip them (state that changes, placeholders, rates read as 1/x, digits in names).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allParsers, parseLine } from '../../../electron/core/metrics/parsers/detect.js';
import { LineTemplates, sameShape, shapeMatcher, shapeOf } from '../../../electron/core/metrics/parsers/lineTemplates.js';
import { freshParsers } from '../../../electron/core/metrics/parsers/registry.js';
import type { MetricRecord } from '../../../electron/core/metrics/parsers/types.js';

const TRAINING_LOGS = path.resolve('test/fixtures/training-logs');
const PLAIN_LOGS = path.resolve('test/fixtures/plain-logs/formats.json');

function templatesOver(): LineTemplates {
  const parsers = allParsers();
  return new LineTemplates(parsers, () => freshParsers(parsers));
}

/** Each line read through templates and by the parsers alone (each with parsers of their own), in order: the first line where they differ, or null. */
function firstDifference(lines: readonly string[]): { line: number; text: string; templated: MetricRecord | null; parsed: MetricRecord | null } | null {
  const templates = templatesOver();
  const parsers = allParsers();
  for (let i = 0; i < lines.length; i++) {
    const templated = templates.read(lines[i]!);
    const parsed = parseLine(lines[i]!, parsers);
    if (!sameRecord(templated, parsed)) return { line: i + 1, text: lines[i]!, templated, parsed };
  }
  return null;
}

function sameRecord(a: MetricRecord | null, b: MetricRecord | null): boolean {
  if (a === null || b === null) return a === b;
  const names = Object.keys(a.values);
  return (
    a.kind === b.kind &&
    Object.is(a.step, b.step) &&
    names.join('\u0000') === Object.keys(b.values).join('\u0000') &&
    names.every((name) => Object.is(a.values[name], b.values[name]))
  );
}

/** A dense log: `step i: loss x, t ms/step, grad_norm g`, with the loss falling and the widths of the numbers changing. */
function denseLines(count: number, first = 1): string[] {
  const lines: string[] = [];
  for (let step = first; step < first + count; step++) {
    const loss = (5 / Math.sqrt(step)).toFixed(4);
    lines.push(`step ${step}: loss ${loss}, ${(10 + (step % 7) / 10).toFixed(1)} ms/step, grad_norm ${(0.5 + (step % 3) / 10).toFixed(1)}`);
  }
  return lines;
}

describe('line templates', () => {
  it('read every line of every real training log as the parsers do, the log read twice over', () => {
    const logs = fs.readdirSync(TRAINING_LOGS).filter((name) => name.endsWith('.log'));
    expect(logs.length).toBeGreaterThan(20);
    for (const name of logs) {
      const lines = fs.readFileSync(path.join(TRAINING_LOGS, name), 'utf8').split(/\r\n|\n|\r/);
      expect({ log: name, difference: firstDifference([...lines, ...lines]) }).toEqual({ log: name, difference: null });
    }
  });

  it('read every plain-log case as the parsers do, each case repeated so its shapes get templates', () => {
    const { cases } = JSON.parse(fs.readFileSync(PLAIN_LOGS, 'utf8')) as { cases: Array<{ name: string; lines: string[] }> };
    const lines = cases.flatMap((plainCase) => [...plainCase.lines, ...plainCase.lines, ...plainCase.lines]);
    expect(firstDifference(lines)).toBeNull();
  });

  it('read a dense log by template, all but the lines of shapes seen for the first or second time', () => {
    const templates = templatesOver();
    const lines = denseLines(20_000);
    const parsers = allParsers();
    for (const line of lines) expect(sameRecord(templates.read(line), parseLine(line, parsers))).toBe(true);
    const shapes = new Set(lines.map((line) => line.replace(/[0-9]/g, '0'))).size;
    expect(templates.linesTemplated).toBeGreaterThanOrEqual(lines.length - 2 * shapes);
    expect(templates.linesTemplated).toBeGreaterThan(19_000);
  });

  it('follow the state a line changes: an epoch header gives the lines after it their epoch', () => {
    // The first lines come before any header: their templates know no epoch, and must not outlive the header.
    const lines = [...denseLines(50, 1), 'Epoch 2/3', ...denseLines(50, 51), 'Epoch 3', ...denseLines(50, 101)];
    expect(firstDifference(lines)).toBeNull();
    const templates = templatesOver();
    const records = lines.map((line) => templates.read(line)).filter((record) => record !== null);
    expect(records.map((record) => record.values.epoch)).toEqual([
      ...Array<undefined>(50).fill(undefined),
      ...Array<number>(50).fill(2),
      ...Array<number>(50).fill(3),
    ]);
    // Each stretch gets templates of its own, made under its header's epoch: all but a few lines of each read by them.
    expect(templates.linesTemplated).toBeGreaterThan(120);
  });

  it('stay in place across lines a parser reads without remembering anything (settings it takes for no metric)', () => {
    const lines: string[] = [];
    for (let line = 0; line < 4_000; line++) {
      lines.push(line % 40 === 0 ? `myrun it=${line / 40} L=${(3 - line * 1e-7).toFixed(5)}` : `INFO data shard ${line} prefetched, cache warm`);
    }
    expect(firstDifference(lines)).toBeNull();
    const templates = templatesOver();
    for (const line of lines) templates.read(line);
    // A template cleared by each `myrun` line would be made again from two lines each time: a tenth of these read by templates at most.
    expect(templates.linesTemplated).toBeGreaterThan(3_800);
  });

  it('drop a placeholder value again for each line, and parse a line it empties as the parsers do', () => {
    const lines: string[] = [];
    for (let step = 10; step < 60; step++) lines.push(`step ${step} | mfu ${step % 5 === 0 ? '-1.00' : ' 3.25'}% | loss ${(step / 100).toFixed(2)}`);
    for (let step = 10; step < 60; step++) lines.push(`step ${step}: mfu ${step % 4 === 0 ? '0.0' : '2.5'}%`);
    expect(firstDifference(lines)).toBeNull();
  });

  it('leave values the parsers do not take as a multiple of the number (a rate from s/it) to the parsers, and keep digits in names as names', () => {
    const lines: string[] = [];
    for (let step = 10; step < 80; step++) {
      lines.push(`step ${step}: loss 2.${step}, ${(1 + step / 100).toFixed(2)}s/it`);
      lines.push(`step ${step}: top1_acc ${(step / 100).toFixed(2)}, top5_acc ${(step / 90).toFixed(2)}, bf16 loss ${step}.5`);
      lines.push(`step ${step}: loss nan, lr 3e-4, grad_norm inf, delta -${step}.25`);
      lines.push(`step ${step}: loss ${step},${(step * 7) % 1000 === 0 ? '000' : '125'}.5 tokens`);
    }
    expect(firstDifference(lines)).toBeNull();
  });

  it('read a learning rate in exponent notation as one number of the line, whatever its exponent', () => {
    const lines: string[] = [];
    for (let step = 1; step <= 3000; step++) {
      const lr = 3e-4 * Math.exp(-step / 400);
      lines.push(
        `step ${step}: loss ${(3 / Math.sqrt(step)).toFixed(4)}, lr ${lr.toExponential(2)}, lr_raw ${lr.toExponential(3).replace('e-', 'E-')}, scale 1e5`,
      );
    }
    expect(firstDifference(lines)).toBeNull();
    const templates = templatesOver();
    for (const line of lines) templates.read(line);
    expect(templates.linesTemplated).toBeGreaterThan(2_900);
  });

  it('read lines with numbers of every width, and a step that goes past each power of ten', () => {
    expect(firstDifference(denseLines(12_000, 1))).toBeNull();
    expect(firstDifference(denseLines(3_000, 99_000))).toBeNull();
  });
});

describe("a shape's matcher", () => {
  // Regular expressions' own characters, digits after names and after signs, non-ASCII letters, a pair and a lone surrogate.
  const ALPHABET = [
    'a',
    'Z',
    '_',
    ' ',
    '.',
    '-',
    '+',
    '*',
    '?',
    '^',
    '$',
    '{',
    '}',
    '(',
    ')',
    '|',
    '[',
    ']',
    '\\',
    '/',
    ':',
    '=',
    'é',
    '😀',
    '\udfff',
    '\u0000',
    '0',
    '1',
    '5',
    '9',
  ];
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const randomLine = () => Array.from({ length: 1 + random(24) }, () => ALPHABET[random(ALPHABET.length)]).join('');
  /** The line with one character changed, or its digits changed: often the same shape, often not. */
  const variant = (line: string) =>
    random(2) === 0
      ? line.replace(/[0-9]/g, () => String(random(10)))
      : line.slice(0, random(line.length)) + ALPHABET[random(ALPHABET.length)] + line.slice(random(line.length) + 1);

  it('accepts exactly the lines the shape loop accepts', () => {
    let same = 0;
    for (let i = 0; i < 20_000; i++) {
      const line = randomLine();
      const shape = shapeOf(line);
      const matcher = shapeMatcher(shape);
      for (const other of [line, variant(line), variant(variant(line)), randomLine()]) {
        expect(matcher.test(other), `${JSON.stringify(other)} against the shape of ${JSON.stringify(line)}`).toBe(sameShape(other, shape));
        if (other !== line && sameShape(other, shape)) same++;
      }
    }
    // The variants reach both answers many times.
    expect(same).toBeGreaterThan(1000);
  });
});
