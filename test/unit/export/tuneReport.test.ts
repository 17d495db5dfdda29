// The tune's report (Markdown and HTML): golden files of a realistic ladder, escaping of every text from the result, and what a reader is told first when nothing was kept or the tune was cancelled.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderTuneReport } from '../../../electron/core/export/tuneReport.js';
import type { TuneResult, TuneStep } from '../../../electron/shared/api.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
const GOLDEN = path.join(REPO_ROOT, 'test/fixtures/golden');
const GENERATED_AT = new Date('2026-03-14T09:26:53Z');

const PATCH = [
  '--- a/train.py',
  '+++ b/train.py',
  '@@ -49,7 +49,7 @@',
  ' ',
  ' def main():',
  '     model = MLP()',
  '-    loader = DataLoader(SlowDataset(), batch_size=64, shuffle=True)',
  '+    loader = DataLoader(SlowDataset(), batch_size=64, shuffle=True, num_workers=4, persistent_workers=True)',
  '     opt = torch.optim.SGD(model.parameters(), lr=0.05)',
  '     for epoch in range(2):',
  '         for x, y in loader:',
  '',
].join('\n');

/** A step as the ladder writes one; each test changes what it is about. */
function step(over: Partial<TuneStep> & Pick<TuneStep, 'name' | 'status'>): TuneStep {
  return {
    knobs: {},
    reason: '',
    against: 'baseline',
    sweepIds: [],
    runIds: [],
    throughput: { median: null, ci95: null, unit: null },
    speedup: { ratio: null, ci95: null, verdict: '-', reason: null },
    n: { candidate: 0, against: 0 },
    stepTimeMs: null,
    finalLoss: null,
    vramPeakMiB: null,
    gate: 'n/a',
    gateReason: '',
    knobState: null,
    kept: false,
    ...over,
  };
}

/** An MLP whose DataLoader loads a quarter of each step, tuned on a CPU box with torch 1.13: workers kept, autocast undecided, the CUDA knobs and compile skipped. */
function realistic(): TuneResult {
  return {
    status: 'succeeded',
    command: 'python train.py --epochs 2',
    cwd: '/home/ana/mlp',
    steps: [
      step({
        name: 'baseline',
        status: 'baseline',
        reason: 'the script as it is',
        against: '-',
        sweepIds: [1],
        runIds: [1, 3],
        throughput: { median: 812.4, ci95: { low: 790.2, high: 835.2 }, unit: 'samples/s' },
        speedup: { ratio: 1, ci95: null, verdict: 'baseline', reason: null },
        n: { candidate: 2, against: 0 },
        stepTimeMs: 78.78,
        finalLoss: 0.4127,
        gateReason: 'the baseline',
      }),
      step({
        name: '+workers=4',
        status: 'kept',
        knobs: { workers: '4', persistentWorkers: 'on' },
        reason: 'faster: the interval lies above 1 (2 and 2 runs, 98.3 % t-interval)',
        sweepIds: [1],
        runIds: [2, 4],
        throughput: { median: 1093, ci95: { low: 1061, high: 1126 }, unit: 'samples/s' },
        speedup: { ratio: 1.345, ci95: { low: 1.281, high: 1.413 }, verdict: 'faster', reason: 'the interval lies above 1 (2 and 2 runs, 98.3 % t-interval)' },
        n: { candidate: 2, against: 2 },
        stepTimeMs: 58.55,
        finalLoss: 0.4131,
        gate: 'pass',
        gateReason: 'train loss at 12,800 samples +0.0004 (limit +0.05)',
        knobState: 'applied at train.py:52 (num_workers 0 -> 4)',
        kept: true,
      }),
      step({
        name: '+autocast=bf16',
        status: 'rejected',
        knobs: { autocast: 'bf16' },
        reason:
          'not shown faster within the repeat budget (inconclusive): cannot tell: the interval 0.942-1.081 holds both 1 and changes beyond ±2 %; about 6 more runs per side would decide (4 and 4 runs, 98.3 % t-interval)',
        against: '+workers=4 +persistentWorkers=on',
        sweepIds: [2],
        runIds: [6, 8, 10, 12],
        throughput: { median: 1104, ci95: { low: 1032, high: 1181 }, unit: 'samples/s' },
        speedup: { ratio: 1.009, ci95: { low: 0.942, high: 1.081 }, verdict: 'inconclusive', reason: 'cannot tell' },
        n: { candidate: 4, against: 4 },
        stepTimeMs: 57.98,
        finalLoss: 0.4162,
        gate: 'pass',
        gateReason: 'train loss at 12,800 samples +0.0031 (limit +0.05)',
        knobState: 'applied at train.py:47 (MLP.forward under torch.autocast("cpu", dtype=torch.bfloat16))',
      }),
      step({
        name: '+tf32=on',
        status: 'skipped',
        knobs: { tf32: 'on' },
        reason: 'no CUDA device here: tf32 acts on NVIDIA GPUs only',
        against: '+workers=4 +persistentWorkers=on',
      }),
      step({
        name: '+cudnnBenchmark=on',
        status: 'skipped',
        knobs: { cudnnBenchmark: 'on' },
        reason: 'no CUDA device here: cudnnBenchmark acts on NVIDIA GPUs only',
        against: '+workers=4 +persistentWorkers=on',
      }),
      step({
        name: '+compile=on',
        status: 'skipped',
        knobs: { compile: 'on' },
        reason: 'torch 1.13.1+cpu has no torch.compile (2.0 and newer)',
        against: '+workers=4 +persistentWorkers=on',
      }),
    ],
    kept: { workers: '4', persistentWorkers: 'on' },
    total: {
      ratio: 1.345,
      ci95: { low: 1.281, high: 1.413 },
      verdict: 'faster',
      reason: 'the interval lies above 1 (2 and 2 runs, 98.3 % t-interval)',
      sweepIds: [1],
      measuredBy: '+workers=4 was measured against the baseline itself',
    },
    suggestions: [
      {
        knobs: ['workers=4', 'persistentWorkers=on'],
        file: '/home/ana/mlp/train.py',
        line: 52,
        text: 'train.py:52: DataLoader(..., num_workers=4, persistent_workers=True)',
        diff: PATCH,
      },
    ],
    patch: PATCH,
    patchDir: '/home/ana/mlp',
    confidence: 1 - 0.05 / 3,
    lossAt: 'step 40',
    machine: { torch: '1.13.1+cpu', cuda: false },
    notes: [
      'skipped: +tf32=on (no CUDA device here: tf32 acts on NVIDIA GPUs only); +cudnnBenchmark=on (no CUDA device here: cudnnBenchmark acts on NVIDIA GPUs only); +compile=on (torch 1.13.1+cpu has no torch.compile (2.0 and newer))',
    ],
    error: null,
  };
}

/** The result with nothing kept: workers was no faster either. */
function nothingKept(): TuneResult {
  const result = realistic();
  const workers = result.steps[1]!;
  result.steps[1] = {
    ...workers,
    status: 'rejected',
    kept: false,
    reason: 'same: no change larger than ±2 %: the interval lies inside 1 ± 2 % (2 and 2 runs, 98.3 % t-interval)',
    speedup: { ratio: 1.004, ci95: { low: 0.991, high: 1.017 }, verdict: 'same', reason: 'no change larger than ±2 %' },
  };
  for (const s of result.steps.slice(2)) s.against = 'baseline';
  return {
    ...result,
    kept: {},
    total: null,
    suggestions: [],
    patch: null,
    patchDir: null,
    notes: [...result.notes, 'nothing kept: none of the knobs tried made this script faster here'],
  };
}

describe('the tune report matches its golden files', () => {
  for (const format of ['md', 'html'] as const) {
    it(format, () => {
      const content = renderTuneReport(realistic(), format, { generatedAt: GENERATED_AT });
      const file = path.join(GOLDEN, `tune.${format}`);
      if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(file, content);
      expect(content).toBe(fs.readFileSync(file, 'utf8'));
    });
  }
});

describe('the answer comes first', () => {
  it('names the kept knobs and their measured total against the baseline before the table', () => {
    const md = renderTuneReport(realistic(), 'md', { generatedAt: GENERATED_AT });
    const answer = md.indexOf('## Answer');
    const total = md.indexOf("Keep `workers=4 persistentWorkers=on`: 1.35x the baseline's throughput (98.3 % CI 1.28-1.41), faster");
    expect(answer).toBeGreaterThan(0);
    expect(total).toBeGreaterThan(answer);
    expect(total).toBeLessThan(md.indexOf('| Config |'));
    expect(md).toContain('Measured: +workers=4 was measured against the baseline itself (sweep 1).');
  });

  it('says plainly that nothing was kept, and offers no change to make permanent', () => {
    for (const format of ['md', 'html'] as const) {
      const out = renderTuneReport(nothingKept(), format, { generatedAt: GENERATED_AT });
      expect(out).toContain('Nothing was kept: none of the knobs tried was faster within the quality gate here');
      expect(out).not.toContain('make it permanent');
      expect(out).not.toContain('Keep ');
      expect(out).not.toContain('git apply');
    }
  });

  it('says a cancelled tune was cancelled, and where, before anything else', () => {
    const result = realistic();
    result.status = 'cancelled';
    result.steps = result.steps.slice(0, 3);
    result.steps[2] = { ...result.steps[2]!, status: 'cancelled', reason: 'cancelled' };
    result.total = null;
    result.suggestions = [];
    result.patch = null;
    for (const format of ['md', 'html'] as const) {
      const out = renderTuneReport(result, format, { generatedAt: GENERATED_AT });
      const cancelled = out.indexOf('Cancelled at +autocast=bf16');
      expect(cancelled, out).toBeGreaterThan(0);
      expect(cancelled).toBeLessThan(out.indexOf('Generated '));
      expect(cancelled).toBeLessThan(out.indexOf('Answer'));
      expect(out).toContain('Kept before the tune was cancelled: ');
      expect(out).toContain('The kept combination was not measured against the baseline.');
    }
  });

  it("says where the patch applies: the command's directory, or the one holding a script typed from elsewhere", () => {
    expect(renderTuneReport(realistic(), 'md', { generatedAt: GENERATED_AT })).toContain('apply it in `/home/ana/mlp` with `git apply tune.patch`');
    const elsewhere = { ...realistic(), cwd: '/tmp/scratch', patchDir: '/home/ana/mlp' };
    const md = renderTuneReport(elsewhere, 'md', { generatedAt: GENERATED_AT });
    expect(md).toContain('apply it in `/home/ana/mlp` with');
    expect(md).not.toContain('apply it in `/tmp/scratch`');
  });

  it('says a failed tune failed, with its error, at the top and again at the end', () => {
    const result = { ...nothingKept(), status: 'failed' as const, steps: nothingKept().steps.slice(0, 1), error: "the baseline's runs failed: exit 1" };
    const md = renderTuneReport(result, 'md', { generatedAt: GENERATED_AT });
    expect(md.split('\n')[2]).toBe("**Failed: the baseline's runs failed: exit 1. What follows is what was measured before.**");
    expect(md).toContain('Nothing was kept before the tune failed');
    expect(md).toMatch(/## Error\n\nthe baseline's runs failed: exit 1\n$/u);
  });
});

describe('every text from the result is escaped', () => {
  const hostile = (): TuneResult => {
    const result = realistic();
    result.command = "python train.py --tag '<script>alert(1)</script>' | tee log";
    result.cwd = '/home/ana/a&b <dir>';
    result.patchDir = result.cwd;
    result.steps[1] = { ...result.steps[1]!, name: '+workers=4|<b>x</b>' };
    result.steps[2] = { ...result.steps[2]!, reason: 'rejected <img src=x onerror=alert(2)> `code` | pipe' };
    result.suggestions[0] = { ...result.suggestions[0]!, text: 'train.py:52: DataLoader(..., collate_fn=lambda b: b if len(b) < 2 else b)' };
    result.patch = `${PATCH}+    print("</pre><script>alert(3)</script>")\n`;
    result.notes = ['a note with <iframe>'];
    return result;
  };

  it('HTML: a command, a config name, a reason, a patch never become markup', () => {
    const html = renderTuneReport(hostile(), 'html', { generatedAt: GENERATED_AT });
    // The only tags are the report's own: no script, img, iframe or b from the result.
    expect(html).not.toMatch(/<script|<img|<iframe|<b>/iu);
    expect(html).toContain('<title>Tuning results: python train.py --tag &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39; | tee log</title>');
    expect(html).toContain('<code>/home/ana/a&amp;b &lt;dir&gt;</code>');
    expect(html).toContain('print(&quot;&lt;/pre&gt;&lt;script&gt;alert(3)&lt;/script&gt;&quot;)');
    expect(html).toContain('&lt;iframe&gt;');
    // One <pre>, holding the whole patch: the patch's </pre> did not close it.
    expect(html.match(/<pre/gu)).toHaveLength(1);
    const pre = /<pre class="patch"[^>]*><code>([\s\S]*?)<\/code><\/pre>/u.exec(html)![1]!;
    expect(pre.split('\n')).toHaveLength(PATCH.trimEnd().split('\n').length + 1);
  });

  it('Markdown: a | in a config name keeps its row in the table; < and backticks stay text', () => {
    const md = renderTuneReport(hostile(), 'md', { generatedAt: GENERATED_AT });
    const lines = md.split('\n');
    const header = lines.find((l) => l.startsWith('| Config |'))!;
    const cellsOf = (line: string) => line.replace(/\\\|/gu, '').split('|').length;
    const rows = lines.filter((l) => l.startsWith('| +') || l.startsWith('| baseline'));
    expect(rows).toHaveLength(6);
    for (const row of rows) expect(cellsOf(row), row).toBe(cellsOf(header));
    expect(md).toContain('| +workers=4\\|\\<b>x\\</b> |');
    // The command is in a code span (literal there), the prose escapes < and the backtick.
    expect(md).toContain("Command: `python train.py --tag '<script>alert(1)</script>' | tee log` in `/home/ana/a&b <dir>`");
    expect(md).toContain('rejected \\<img src=x onerror=alert(2)> \\`code\\` \\| pipe');
    expect(md).not.toMatch(/(^|[^\\`])<(img|iframe|b>)/mu);
    expect(md).toContain('len(b) \\< 2');
  });

  it('Markdown: a patch holding ``` gets a longer fence, so the block holds the whole patch', () => {
    const result = realistic();
    result.patch = `${PATCH}+    """\n+    \`\`\`python\n+    \`\`\`\n+    """\n`;
    const md = renderTuneReport(result, 'md', { generatedAt: GENERATED_AT });
    expect(md).toContain('````diff\n--- a/train.py');
    expect(md).toContain('+    """\n````\n');
  });

  it('Markdown: a command holding backticks is still one code span', () => {
    const result = realistic();
    result.command = 'python train.py --name `hostname`';
    const md = renderTuneReport(result, 'md', { generatedAt: GENERATED_AT });
    expect(md).toContain('Command: `` python train.py --name `hostname` `` in');
  });
});

describe('titles', () => {
  it('takes a title when given one, escaped', () => {
    const html = renderTuneReport(realistic(), 'html', { generatedAt: GENERATED_AT, title: 'MLP <on> the CPU box' });
    expect(html).toContain('<h1>MLP &lt;on&gt; the CPU box</h1>');
    expect(renderTuneReport(realistic(), 'md', { generatedAt: GENERATED_AT }).split('\n')[0]).toBe('# Tuning results: python train.py --epochs 2');
  });
});
