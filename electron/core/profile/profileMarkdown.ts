// A step profile, or two compared, as Markdown: the bottleneck table that optimisation plans paste.
import type { ProfileComparison, RunProfile } from '../../shared/profile.js';

/** Rows in the operator table: the plans' bottleneck tables list a handful; the trace has the rest. */
export const MARKDOWN_OPS = 15;

const fixed = (value: number | null, digits = 2) => (value === null ? 'n/a' : value.toFixed(digits));
const percent = (value: number | null) => (value === null ? 'n/a' : `${value.toFixed(1)} %`);
const cell = (text: string) => text.replace(/\|/gu, '\\|');

export function profileMarkdown(profile: RunProfile): string {
  const lines: string[] = [];
  const numbering = profile.numbering.by === 'script' ? ' as the script numbers them' : '';
  const window = profile.window ? `steps ${profile.window.fromStep}-${profile.window.toStep}${numbering}` : 'no window';
  lines.push(`## Profile of run ${profile.runId}`, '');
  const left = profile.steps.length - profile.keptSteps;
  lines.push(
    `Made by ${profile.tool ?? 'no tool'} on ${profile.device ?? 'an unknown device'}, ${window} ` +
      `(after ${profile.warmupSteps} warm-up steps; steps marked by ${profile.boundary ?? 'n/a'}` +
      `${profile.status === 'ok' ? `; means over ${profile.keptSteps} steps${left > 0 ? `, ${left} left out` : ''}` : ''})` +
      `${profile.sourceRunId !== null ? `, re-running the command of run ${profile.sourceRunId}` : ''}.`,
    '',
  );
  if (profile.status !== 'ok') {
    lines.push('No window was profiled.', '');
    for (const note of profile.notes) lines.push(`- ${note}`);
    return `${lines.join('\n')}\n`;
  }
  const step = profile.phases.stepMs;
  const estimated = profile.overhead?.estimatedPhases ?? null;
  lines.push(
    `| Phase | ms per step | % of step |${estimated ? ' % without the profiler (estimated) |' : ''}`,
    `| --- | ---: | ---: |${estimated ? ' ---: |' : ''}`,
  );
  const phaseRows: Array<[string, keyof RunProfile['phases']]> = [
    ['data loading', 'dataLoadingMs'],
    ["input (script's batch code)", 'inputMs'],
    ['forward', 'forwardMs'],
    ['backward', 'backwardMs'],
    ['optimizer', 'optimizerMs'],
    ['other', 'otherMs'],
    ['**step**', 'stepMs'],
  ];
  for (const [name, key] of phaseRows) {
    const value = profile.phases[key];
    if (key === 'inputMs' && value === null) continue;
    const share = percent(value !== null && step ? (100 * value) / step : null);
    const without = estimated ? ` ${percent(estimated[key] !== null && estimated.stepMs ? (100 * estimated[key]!) / estimated.stepMs : null)} |` : '';
    lines.push(`| ${name} | ${fixed(value)} | ${share} |${without}`);
  }
  lines.push('', '| Operator | self ms per step | % of step | calls per step |', '| --- | ---: | ---: | ---: |');
  for (const op of profile.ops.slice(0, MARKDOWN_OPS)) {
    lines.push(`| \`${cell(op.name)}\` | ${fixed(op.selfMs, 3)} | ${percent(op.pct)} | ${fixed(op.calls, 1)} |`);
  }
  if (profile.ops.length > MARKDOWN_OPS)
    lines.push('', `${profile.ops.length - MARKDOWN_OPS} more operators in \`profile ${profile.runId} --json\` and the trace.`);
  lines.push('');
  if (profile.input) lines.push(`Input is ${profile.input.definition}.${profile.input.note ? ` ${profile.input.note}.` : ''}`, '');
  if (profile.overhead) lines.push(`Overhead: ${profile.overhead.statement}.`, '');
  if (profile.syncs) {
    const s = profile.syncs;
    const sites = s.sites.map((site) => `${site.site} ${site.what} ${fixed(site.callsPerStep, 1)}`).join(', ');
    lines.push(
      `Host-device syncs (the host waiting for the GPU): ${fixed(s.perStep, 1)} per step, ${s.deviceWaits ?? 'n/a'} in the kept steps; ` +
        `${s.memcpyDtoH ?? 'n/a'} device-to-host copies${sites ? `. By line of the script, per step: ${sites}` : ''}.`,
      '',
    );
  }
  if (profile.gpu) {
    const g = profile.gpu;
    lines.push(
      `GPU: ${g.kernels ?? 'n/a'} kernels, mean ${fixed(g.meanKernelUs, 1)} µs; idle ${fixed(g.idleMsPerStep)} ms per step; ` +
        `peak memory ${fixed(g.peakMemoryMiB, 0)} MiB.`,
      '',
    );
  }
  if (profile.diagnosis.length > 0) {
    lines.push('**Diagnosis**', '');
    for (const reading of profile.diagnosis) lines.push(`- ${reading}`);
    lines.push('');
  }
  for (const note of profile.notes) lines.push(`> ${note}`);
  if (profile.tracePath)
    lines.push(`Trace: \`${profile.tracePath}\` (open in https://ui.perfetto.dev or chrome://tracing; steps and phases on their own tracks)`);
  return `${lines.join('\n')}\n`;
}

export function comparisonMarkdown(comparison: ProfileComparison): string {
  const lines = [`## Profile of run ${comparison.runId} against baseline run ${comparison.baselineRunId}`, ''];
  const table = (title: string, rows: ProfileComparison['phases']) => {
    lines.push(`| ${title} | baseline ms | ms | change ms | baseline % | % |`, '| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const row of rows) {
      const change = row.deltaMs === null ? 'n/a' : `${row.deltaMs > 0 ? '+' : ''}${row.deltaMs.toFixed(2)}`;
      lines.push(`| ${cell(row.name)} | ${fixed(row.baselineMs)} | ${fixed(row.ms)} | ${change} | ${percent(row.baselineShare)} | ${percent(row.share)} |`);
    }
    lines.push('');
  };
  table('Phase (per step)', comparison.phases);
  table('Operator (self, per step)', comparison.ops);
  for (const change of comparison.changes) lines.push(`- ${change}`);
  return `${lines.join('\n')}\n`;
}
