// `tuning-bench profile RUN_ID [--rerun] [--baseline ID] [--format md|json]`: a run's step profile, or two compared.
import type { Core } from '../../core/createCore.js';
import { comparisonMarkdown, profileMarkdown } from '../../core/profile/profileMarkdown.js';
import { ApiFailure, type Run } from '../../shared/api.js';
import { profileOptions, type RunProfile } from '../../shared/profile.js';
import { UsageError } from '../errors.js';
import { contractClient, naming } from '../contract.js';
import { StopSignals } from '../stopSignals.js';

export interface ProfileCommandOptions {
  baseline?: number;
  format: 'md' | 'json';
  json: boolean;
  /** Run the command again with profiling on, then show that profile. */
  rerun: boolean;
  warmup?: number;
  steps?: number;
}

/** The `--profile-warmup` / `--profile-steps` of `run`, or `--warmup` / `--steps` of `profile`, checked by the contract. */
export function profileSettings(warmup: number | undefined, steps: number | undefined) {
  const parsed = profileOptions.safeParse({ warmupSteps: warmup, steps });
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return parsed.data;
}

async function requireProfile(core: Core, runId: number): Promise<RunProfile> {
  const profile = await naming(contractClient(core)['profiles.get']({ runId }), `run ${runId}`, core, 'list them with `tuning-bench runs`');
  if (!profile) {
    throw new ApiFailure(
      'not_found',
      `run ${runId} has no profile; \`tuning-bench profile ${runId} --rerun\` runs its command again with a window of steady steps profiled`,
    );
  }
  return profile;
}

/** Streams a profiling rerun's output to stderr until it ends; a stop signal stops it cleanly. */
async function followProfiledRerun(core: Core, sourceId: number, started: Run, stops: StopSignals): Promise<void> {
  // The live output goes to stderr: stdout carries only the profile.
  const subscription = core.subscribe((event, payload) => {
    if (event === 'runs.onOutput' && payload.runId === started.id) process.stderr.write(payload.data);
  });
  const client = contractClient(core);
  stops.onStop((reason) => void client['runs.stop']({ id: started.id, reason }).catch(() => undefined));
  try {
    const finished = await core.waitForExit(started.id);
    process.stderr.write(`\nrun ${finished.id} (profile of run ${sourceId}): ${finished.status}\n`);
  } finally {
    subscription.unsubscribe();
  }
}

export async function profileCommand(core: Core, runId: number, options: ProfileCommandOptions): Promise<void> {
  if (options.rerun) {
    const settings = profileSettings(options.warmup, options.steps);
    const api = contractClient(core);
    // Listening before the rerun starts: a signal while it is being started stops it as soon as it exists.
    const stops = new StopSignals();
    try {
      await followProfiledRerun(core, runId, await api['runs.profile']({ id: runId, ...settings }), stops);
    } finally {
      stops.dispose();
    }
  } else if (options.warmup !== undefined || options.steps !== undefined) {
    throw new UsageError('--warmup and --steps choose the window of a new profile: give them with --rerun');
  }
  const profile = await requireProfile(core, runId);
  const json = options.json || options.format === 'json';
  if (options.baseline !== undefined) {
    await requireProfile(core, options.baseline);
    const comparison = await contractClient(core)['profiles.compare']({ runId, baselineRunId: options.baseline });
    process.stdout.write(json ? `${JSON.stringify(comparison, null, 2)}\n` : comparisonMarkdown(comparison));
    return;
  }
  process.stdout.write(json ? `${JSON.stringify(profile, null, 2)}\n` : profileMarkdown(profile));
}
