// MLflow: publishing runs, sweeps and comparisons to a tracking server, the record of what went where, and pulling runs back.
import { z } from 'zod';
import { empty } from './common.js';
import { compareRequest } from './compare.js';
import { run } from './runs.js';

/** The experiment runs go to when none is named. */
export const DEFAULT_MLFLOW_EXPERIMENT = 'tuning-bench';

/** An http(s) address of an MLflow tracking server (credentials in it are used, never stored). */
export const trackingUri = z
  .string()
  .trim()
  .min(1, 'give the tracking server, e.g. http://127.0.0.1:5000')
  .max(2000)
  .refine((value) => /^https?:\/\/[^/\s]+/iu.test(value), 'a tracking server is an http:// or https:// address, e.g. http://127.0.0.1:5000');

/** MLflow allows up to 500 characters in an experiment's name. */
export const experimentName = z.string().trim().min(1, 'an experiment needs a name').max(500);

/** MLflow's run ids are 32 hex characters; anything else cannot name one. */
export const mlflowRunId = z.string().regex(/^[0-9a-f]{32}$/u, 'an MLflow run id is 32 hex characters, as in the run page of its UI');

export const publicationKind = z.enum(['run', 'sweep', 'comparison']);

/** One line of the record of what was published where. */
export const publication = z.object({
  kind: publicationKind,
  runId: z.number().int().nullable(),
  sweepId: z.number().int().nullable(),
  /** A comparison: the digest of what it compares. */
  comparisonKey: z.string().nullable(),
  /** Without credentials. */
  trackingUri: z.string(),
  experimentName: z.string(),
  experimentId: z.string().nullable(),
  mlflowRunId: z.string().nullable(),
  /** `pending`: asked for while it still ran; published when it ends. */
  state: z.enum(['pending', 'published', 'failed']),
  requestedAt: z.string(),
  publishedAt: z.string().nullable(),
  /** Why the last try failed, for a person to read. */
  error: z.string().nullable(),
  /** The MLflow run in the server's UI; null until it exists. */
  url: z.string().nullable(),
});

/** What one publish did to one run, sweep or comparison. */
export const publishOutcome = z.object({
  kind: publicationKind,
  runId: z.number().int().nullable(),
  sweepId: z.number().int().nullable(),
  comparisonKey: z.string().nullable(),
  /** `created`: a new MLflow run; `updated`: an existing one, found by its tags, brought up to date; `unchanged`: nothing to send. */
  result: z.enum(['created', 'updated', 'unchanged', 'pending']),
  mlflowRunId: z.string().nullable(),
  url: z.string().nullable(),
  /** The sweep's (or comparison's) MLflow run this one sits under, if any. */
  parentMlflowRunId: z.string().nullable(),
  /** What was left out and why (an artifact the server does not take, a value cut to MLflow's length limit). */
  warnings: z.array(z.string()),
});

export const publishReport = z.object({
  trackingUri: z.string(),
  experimentName: z.string(),
  experimentId: z.string().nullable(),
  /** The experiment in the server's UI. */
  experimentUrl: z.string().nullable(),
  results: z.array(publishOutcome),
});

export const mlflowSettings = z.object({
  /** Where Publish goes by default; null when neither the setting nor TUNING_BENCH_MLFLOW_URI names one. */
  trackingUri: z.string().nullable(),
  experiment: z.string(),
  /** Publish every finished run and sweep without being asked. */
  autoPublish: z.boolean(),
  /** `environment`: TUNING_BENCH_MLFLOW_URI is set, and wins over the setting (and turns publishing on its own). */
  uriFrom: z.enum(['setting', 'environment']).nullable(),
  /** What MLflow's own variables give for the server's auth: basic (MLFLOW_TRACKING_USERNAME/PASSWORD), a bearer token (MLFLOW_TRACKING_TOKEN), or none. Never the values. */
  credentials: z.enum(['basic', 'token']).nullable(),
});

export const importReport = z.object({
  imported: z.array(run),
  /** MLflow runs not brought in, and why: already here (with the local run), published from this database, not a Tuning Bench run. */
  skipped: z.array(z.object({ mlflowRunId: z.string(), reason: z.string(), localRunId: z.number().int().nullable() })),
});

export type Publication = z.output<typeof publication>;

export type PublishOutcome = z.output<typeof publishOutcome>;

export type PublishReport = z.output<typeof publishReport>;

export type MlflowSettings = z.output<typeof mlflowSettings>;

export type ImportReport = z.output<typeof importReport>;

const target = {
  /** Default: the setting, else TUNING_BENCH_MLFLOW_URI. */
  trackingUri: trackingUri.optional(),
  /** Default: the setting's, else `tuning-bench`. */
  experiment: experimentName.optional(),
};

/** MLflow methods: `mlflow.*`. */
export const mlflowMethods = {
  'mlflow.settings': { input: empty, output: mlflowSettings },
  /** Where Publish goes, and whether finished runs and sweeps are published on their own. A URI with credentials is refused: those go in MLflow's variables. */
  'mlflow.configure': {
    input: z.object({ trackingUri: trackingUri.nullable(), experiment: experimentName.default(DEFAULT_MLFLOW_EXPERIMENT), autoPublish: z.boolean() }),
    output: mlflowSettings,
  },
  /**
   * Runs, sweeps (a parent run with a child per run, the comparison as artifacts and verdict tags) or one
   * comparison, to the tracking server. Publishing again updates the same MLflow runs; one still running is
   * published when it ends.
   */
  'mlflow.publish': {
    input: z.object({
      runIds: z.array(z.number().int().positive()).max(1000).default([]),
      sweepIds: z.array(z.number().int().positive()).max(100).default([]),
      comparison: compareRequest.optional(),
      ...target,
    }),
    output: publishReport,
  },
  /** The record of what was published where, for a run, a sweep or a comparison (all of them when none is named). */
  'mlflow.publications': {
    input: z.object({ runId: z.number().int().positive().optional(), sweepId: z.number().int().positive().optional(), comparison: compareRequest.optional() }),
    output: z.array(publication),
  },
  /** Runs another box published, pulled into this database as read-only runs marked with their machine. */
  'mlflow.import': {
    input: z.object({ mlflowRunIds: z.array(mlflowRunId).max(1000).default([]), ...target }),
    output: importReport,
  },
} as const;
