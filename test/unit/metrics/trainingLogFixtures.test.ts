// Every real training log in test/fixtures/training-logs yields the facts its `.expected.json` lists, under our canonical names.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLogText, type MetricRecord, type MetricRecordKind } from '../../../electron/core/metrics/parsers/index.js';
import { parseClockSeconds } from '../../../electron/core/metrics/text/numbers.js';
import { readCapturedFixture, capturedFixture } from '../../helpers/fixtures.js';

type ParsedRecord = MetricRecord & { line: number };
type Facts = Record<string, unknown>;

/**
 * How a descriptive field of the expected files maps onto a record: the canonical name, and how
 * to bring the record's value back into the unit the fact was written in (so the comparison can
 * use the fact's own printed precision).
 */
interface Mapping {
  name: string;
  toFactUnit?: (value: number) => number;
  /** The fact is a clock string (`23:37`) to compare as seconds. */
  clock?: boolean;
}

const perSecondToSecondsPer = (value: number): number => 1 / value;
const msToSeconds = (value: number): number => value / 1000;
const gibToMib = (value: number): number => value * 1024;

const SAMPLE_NAMES: Readonly<Record<string, Mapping>> = {
  loss: { name: 'loss' },
  loss_avg: { name: 'avg_loss' },
  grad_norm: { name: 'grad_norm' },
  gnorm: { name: 'grad_norm' },
  learning_rate: { name: 'lr' },
  epoch: { name: 'epoch' },
  total_epochs: { name: 'total_epochs' },
  total_steps: { name: 'total_steps' },
  batch: { name: 'batch' },
  total_batches: { name: 'batches' },
  update_in_epoch: { name: 'batch' },
  updates_per_epoch: { name: 'batches' },
  sec_per_it: { name: 'steps_per_sec', toFactUnit: perSecondToSecondsPer },
  it_per_sec: { name: 'steps_per_sec' },
  elapsed: { name: 'elapsed_s', clock: true },
  remaining: { name: 'remaining_s', clock: true },
  eta: { name: 'eta_s', clock: true },
  eta_s: { name: 'eta_s' },
  step_time_ms: { name: 'step_time_ms' },
  step_time_s: { name: 'step_time_ms', toFactUnit: msToSeconds },
  batch_time_s: { name: 'step_time_ms', toFactUnit: msToSeconds },
  avg_batch_time_s: { name: 'avg_step_time_ms', toFactUnit: msToSeconds },
  data_time_s: { name: 'data_time_ms', toFactUnit: msToSeconds },
  epoch_time_s: { name: 'epoch_time_s' },
  mfu_percent: { name: 'mfu_percent' },
  tokens_per_sec: { name: 'tokens_per_sec' },
  words_per_sec: { name: 'tokens_per_sec' },
  samples_per_sec: { name: 'samples_per_sec' },
  avg_samples_per_sec: { name: 'avg_samples_per_sec' },
  img_per_sec: { name: 'samples_per_sec' },
  tflops: { name: 'tflops' },
  memory_gib: { name: 'memory_gib' },
  memory_percent: { name: 'memory_percent' },
  max_mem_mb: { name: 'memory_gib', toFactUnit: gibToMib },
  accuracy: { name: 'accuracy' },
  acc: { name: 'accuracy' },
  val_loss: { name: 'eval_loss' },
  val_accuracy: { name: 'eval_accuracy' },
  val_acc: { name: 'eval_accuracy' },
  acc1: { name: 'acc1_percent' },
  acc1_avg: { name: 'avg_acc1_percent' },
  train_loss: { name: 'train_loss' },
  lm_loss: { name: 'loss' },
  sop_loss: { name: 'sop_loss' },
  loss_scale: { name: 'loss_scale' },
  consumed_samples: { name: 'consumed_samples' },
  consumed_tokens: { name: 'consumed_tokens' },
  global_batch_size: { name: 'global_batch_size' },
  skipped_iterations: { name: 'skipped_iterations' },
  seen: { name: 'samples_seen' },
  total: { name: 'samples_total' },
  percent: { name: 'progress_percent' },
  'memory/max_mem_active(gib)': { name: 'memory_max_mem_active_gib' },
  'memory/device_mem_reserved(gib)': { name: 'memory_device_mem_reserved_gib' },
};

/** In evaluation sections the same descriptive names mean the evaluation's values. */
const EVAL_NAMES: Readonly<Record<string, Mapping>> = {
  ...SAMPLE_NAMES,
  loss: { name: 'eval_loss' },
  loss_avg: { name: 'avg_eval_loss' },
  train_loss: { name: 'loss' },
  valid_loss: { name: 'eval_loss' },
  valid_ppl: { name: 'eval_ppl' },
  acc1: { name: 'eval_acc1_percent' },
  acc1_avg: { name: 'avg_eval_acc1_percent' },
  acc5: { name: 'eval_acc5_percent' },
  acc5_avg: { name: 'avg_eval_acc5_percent' },
  batch_time_s: { name: 'eval_step_time_ms', toFactUnit: msToSeconds },
  batch_time_avg_s: { name: 'avg_eval_step_time_ms', toFactUnit: msToSeconds },
  total: { name: 'batches' },
  it_per_sec: { name: 'eval_steps_per_sec' },
  last_visible: { name: 'batch' },
  eval_runtime_s: { name: 'eval_runtime_s' },
  eval_loss: { name: 'eval_loss' },
  eval_accuracy: { name: 'eval_accuracy' },
  eval_f1: { name: 'eval_f1' },
  eval_combined_score: { name: 'eval_combined_score' },
  eval_samples: { name: 'eval_samples' },
  test_score_0: { name: 'test_score_0' },
  test_score_1: { name: 'test_score_1' },
  eval_samples_per_second: { name: 'eval_samples_per_sec' },
  eval_steps_per_second: { name: 'eval_steps_per_sec' },
};

/** End-of-run and end-of-epoch summaries. */
const SUMMARY_NAMES: Readonly<Record<string, Mapping>> = {
  ...SAMPLE_NAMES,
  train_loss: { name: 'loss' },
  train_ppl: { name: 'ppl' },
  lr: { name: 'lr' },
  train_runtime_s: { name: 'train_runtime_s' },
  train_samples_per_second: { name: 'samples_per_sec' },
  train_steps_per_second: { name: 'steps_per_sec' },
};

interface Section {
  kinds: readonly MetricRecordKind[];
  names: Readonly<Record<string, Mapping>>;
}

const SECTIONS: Readonly<Record<string, Section>> = {
  samples: { kinds: ['train', 'progress'], names: SAMPLE_NAMES },
  eval: { kinds: ['eval'], names: EVAL_NAMES },
  eval_progress: { kinds: ['eval'], names: EVAL_NAMES },
  validation_progress: { kinds: ['eval'], names: EVAL_NAMES },
  epoch_summary: { kinds: ['summary'], names: SUMMARY_NAMES },
  final: { kinds: ['summary'], names: SUMMARY_NAMES },
};

/** Fields that place a fact (which record), not values to compare. */
const LOCATORS = new Set(['step', 'progress_step', 'iteration', 'record']);

/**
 * Facts left unchecked here, each for a reason: they are not metrics of a training line.
 * `failure` is classified by the runner's exit classifier; `other` holds configuration printed
 * before training, which the parsers must NOT turn into metrics (see configDumps.test.ts).
 */
const SKIPPED_TOP_LEVEL = new Set(['framework', 'source_kind', 'notes', 'failure', 'other', 'counts', 'samples', 'timers_ms']);
const SKIPPED_FIELDS: Readonly<Record<string, string>> = {
  v_num: "Lightning's logger version: dropped on purpose, it is not a metric",
  phase: "the record's kind carries the phase",
  epoch_label: 'the same epoch as `epoch`, as printed (`0/59`)',
  eval_runtime: 'checked as eval_runtime_s (the same fact in seconds)',
};

/** Our parser names for the expected `framework` field; `pytorch` scripts with no known format give null. */
const FRAMEWORKS: Readonly<Record<string, string | null>> = {
  'hf-trainer': 'hf-trainer',
  lightning: 'lightning',
  keras: 'keras',
  nanogpt: 'nanogpt',
  llmc: 'llmc',
  'megatron-lm': 'megatron',
  'megatron-deepspeed': 'megatron',
  torchtitan: 'torchtitan',
  'torchvision-references': 'torchvision',
  timm: 'timm',
  'pytorch-examples-imagenet': 'pytorch-examples',
  'pytorch-examples-mnist-format': 'pytorch-examples',
  fairseq: 'fairseq',
  caffe: 'caffe',
  pytorch: null,
};

/** Half a unit in the last printed digit of the fact: the precision it was written with. */
function printedTolerance(fact: number): number {
  const text = String(fact);
  const exponent = /e([+-]\d+)$/u.exec(text);
  const mantissa = exponent === null ? text : text.slice(0, exponent.index);
  const decimals = mantissa.includes('.') ? mantissa.length - mantissa.indexOf('.') - 1 : 0;
  return 0.5 * 10 ** (-decimals + (exponent === null ? 0 : Number(exponent[1])));
}

function factMatches(actual: number | undefined, fact: unknown, mapping: Mapping): boolean {
  if (actual === undefined) return false;
  if (fact === 'nan') return Number.isNaN(actual);
  if (mapping.clock === true) {
    const seconds = typeof fact === 'string' ? parseClockSeconds(fact) : null;
    return seconds !== null && actual === seconds;
  }
  if (typeof fact !== 'number') return false;
  const inFactUnit = mapping.toFactUnit === undefined ? actual : mapping.toFactUnit(actual);
  return Math.abs(inFactUnit - fact) <= printedTolerance(fact) + Math.abs(fact) * 1e-12;
}

/** The expected facts of one sample that are values to compare, with a note for the ones skipped on purpose. */
interface Check {
  field: string;
  mapping: Mapping;
  fact: unknown;
}

function checksOf(sample: Facts, section: Section, fixture: string): Check[] {
  const checks: Check[] = [];
  for (const [field, fact] of Object.entries(sample)) {
    if (LOCATORS.has(field) || field in SKIPPED_FIELDS) continue;
    const mapping = section.names[field];
    if (mapping === undefined) throw new Error(`${fixture}: no mapping for expected field "${field}"`);
    checks.push({ field, mapping, fact });
  }
  return checks;
}

/** Records the sample points at: by step, by the n-th loss record, by epoch / batch / samples seen. */
function locate(records: readonly ParsedRecord[], sample: Facts): ParsedRecord[] {
  const record = sample.record;
  if (typeof record === 'number') {
    const withLoss = records.filter((r) => r.kind === 'train' && r.values.loss !== undefined);
    const nth = withLoss[record - 1];
    return nth === undefined ? [] : [nth];
  }
  let located = [...records];
  const step = sample.step ?? sample.progress_step ?? sample.iteration;
  if (typeof step === 'number') located = located.filter((r) => r.step === step);
  for (const [field, name] of [
    ['epoch', 'epoch'],
    ['batch', 'batch'],
    ['update_in_epoch', 'batch'],
    ['last_visible', 'batch'],
    ['seen', 'samples_seen'],
  ] as const) {
    const value = sample[field];
    if (typeof value === 'number') located = located.filter((r) => r.values[name] === value);
  }
  return located;
}

/** A record that holds every fact; failing that, the located records merged (facts split over lines). */
function unmetFacts(located: readonly ParsedRecord[], checks: readonly Check[]): string[] {
  if (located.some((r) => checks.every((c) => factMatches(r.values[c.mapping.name], c.fact, c.mapping)))) return [];
  const merged: Record<string, number> = {};
  for (const r of located) Object.assign(merged, r.values);
  return checks
    .filter((c) => !factMatches(merged[c.mapping.name], c.fact, c.mapping))
    .map((c) => `${c.field}=${String(c.fact)} (as ${c.mapping.name}: ${String(merged[c.mapping.name])})`);
}

const DIR = capturedFixture('training-logs');
const FIXTURES = fs
  .readdirSync(DIR)
  .filter((name) => name.endsWith('.log'))
  .map((name) => name.slice(0, -'.log'.length))
  .sort();

function load(fixture: string): { facts: Facts; parsed: ReturnType<typeof parseLogText> } {
  const facts = JSON.parse(readCapturedFixture('training-logs', `${fixture}.expected.json`)) as Facts;
  return { facts, parsed: parseLogText(readCapturedFixture('training-logs', `${fixture}.log`)) };
}

function samplesOf(value: unknown): Facts[] {
  if (Array.isArray(value)) return value as Facts[];
  if (typeof value === 'object' && value !== null) return [value as Facts];
  return [];
}

describe('training-log fixtures', () => {
  it('finds the fixtures', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(20);
  });

  describe.each(FIXTURES)('%s', (fixture) => {
    const { facts, parsed } = load(fixture);

    it('detects the framework', () => {
      const framework = facts.framework;
      expect(typeof framework).toBe('string');
      expect(Object.keys(FRAMEWORKS)).toContain(framework);
      expect(parsed.framework).toBe(FRAMEWORKS[framework as string]);
    });

    const sectioned = Object.entries(facts).filter(([key]) => key in SECTIONS && samplesOf(facts[key]).length > 0);
    const unknown = Object.keys(facts).filter((key) => !(key in SECTIONS) && !SKIPPED_TOP_LEVEL.has(key));
    it('has no expected section this test does not know', () => {
      expect(unknown).toEqual([]);
    });

    for (const [key, value] of sectioned) {
      const section = SECTIONS[key]!;
      const inSection = parsed.records.filter((r) => section.kinds.includes(r.kind));
      samplesOf(value).forEach((sample, index) => {
        it(`${key}[${index}] ${JSON.stringify(sample).slice(0, 80)}`, () => {
          const checks = checksOf(sample, section, fixture);
          const located = locate(inSection, sample);
          expect(located.length, 'no record at this place').toBeGreaterThan(0);
          // A -100% MFU is printed as "not measured" (nanoGPT, llm.c): the parsers drop it on purpose.
          const sentinel = checks.filter((c) => c.mapping.name === 'mfu_percent' && c.fact === -100);
          for (const _ of sentinel) expect(located.every((r) => r.values.mfu_percent === undefined)).toBe(true);
          const real = checks.filter((c) => !sentinel.includes(c));
          expect(unmetFacts(located, real)).toEqual([]);
        });
      });
    }

    const counts = samplesOf(facts.counts)[0];
    if (counts !== undefined) {
      it(`counts ${JSON.stringify(counts)}`, () => {
        const train = parsed.records.filter((r) => r.kind === 'train');
        for (const [what, count] of Object.entries(counts)) {
          if (what === 'loss_records') expect(train.filter((r) => r.values.loss !== undefined)).toHaveLength(count as number);
          else if (what === 'iter_lines') expect(train).toHaveLength(count as number);
          else throw new Error(`unknown count ${what}`);
        }
      });
    }

    const timers = samplesOf(facts.timers_ms)[0];
    if (timers !== undefined) {
      it('reads the timer breakdown after the iteration it belongs to', () => {
        const timerRecord = parsed.records.find((r) => r.values.forward_compute_ms !== undefined);
        expect(timerRecord?.step).toBe(10);
        for (const [timer, ms] of Object.entries(timers)) {
          expect(timerRecord?.values[`${timer.replaceAll('-', '_')}_ms`]).toBe(ms);
        }
      });
    }
  });
});
