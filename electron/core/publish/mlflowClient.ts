// A small typed client of MLflow's REST API 2.0 over fetch: the calls publishing and pulling back need, retries with
// backoff for a network that fails, and refusals that say why (auth, permission, not an MLflow server, too old).
import { realDelay } from '../clock.js';
import { z } from 'zod';
import type { TrackingServer } from './trackingServer.js';

/** Why a call failed, for the person: each kind comes with what to do. */
export type MlflowErrorKind = 'unreachable' | 'auth' | 'forbidden' | 'not_mlflow' | 'not_found' | 'version' | 'refused' | 'server';

export class MlflowError extends Error {
  constructor(
    readonly kind: MlflowErrorKind,
    message: string,
    readonly status: number | null = null,
    /** MLflow's own error code (RESOURCE_DOES_NOT_EXIST, INVALID_PARAMETER_VALUE, ...), when it gave one. */
    readonly errorCode: string | null = null,
  ) {
    super(message);
    this.name = 'MlflowError';
  }
}

const tag = z.object({ key: z.string(), value: z.string().default('') });

export const mlflowExperiment = z.object({
  experiment_id: z.string(),
  name: z.string(),
  artifact_location: z.string().optional(),
  lifecycle_stage: z.string().default('active'),
});

export const mlflowMetric = z.object({
  key: z.string(),
  // MLflow writes NaN as the string "NaN" (and ±Infinity as its largest double).
  value: z.union([z.number(), z.string()]).transform((v) => (typeof v === 'number' ? v : Number(v === 'NaN' ? Number.NaN : v))),
  timestamp: z.coerce.number().default(0),
  step: z.coerce.number().default(0),
});

export const mlflowRun = z.object({
  info: z.object({
    run_id: z.string(),
    experiment_id: z.string(),
    run_name: z.string().optional(),
    status: z.string().optional(),
    start_time: z.coerce.number().optional(),
    end_time: z.coerce.number().optional(),
    artifact_uri: z.string().optional(),
    lifecycle_stage: z.string().default('active'),
  }),
  data: z
    .object({
      metrics: z.array(mlflowMetric).default([]),
      params: z.array(tag).default([]),
      tags: z.array(tag).default([]),
    })
    .default({ metrics: [], params: [], tags: [] }),
});

export type MlflowExperiment = z.output<typeof mlflowExperiment>;
export type MlflowRun = z.output<typeof mlflowRun>;
export type MlflowMetric = z.output<typeof mlflowMetric>;

export interface MetricEntry {
  key: string;
  value: number;
  /** Milliseconds since the epoch. */
  timestamp: number;
  step: number;
}

export interface KeyValue {
  key: string;
  value: string;
}

export type MlflowRunStatus = 'RUNNING' | 'FINISHED' | 'FAILED' | 'KILLED';

export interface RetryPolicy {
  /** Tries after the first, for a network failure or a server that says it is busy (429, 502, 503, 504). */
  retries: number;
  /** The first wait; each next one doubles (0.5, 1, 2, 4 s: a server restarting is usually back within that). */
  baseDelayMs: number;
  /** One call's limit; an artifact upload gets `uploadTimeoutMs`. */
  timeoutMs: number;
  uploadTimeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, baseDelayMs: 500, timeoutMs: 60_000, uploadTimeoutMs: 30 * 60_000 };

/** MLflow 2.0 is the oldest server with every call used here answering as documented (search filters on tags, the artifact proxy). */
export const MIN_MLFLOW_VERSION = [2, 0] as const;

const RETRY_STATUSES = new Set([429, 502, 503, 504]);

type Body = string | Uint8Array | ReadableStream<Uint8Array> | null;

interface CallOptions {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  query?: Record<string, string | number> | undefined;
  /** A function, so a retry sends the body again from its start (a stream is read once). */
  body?: (() => Body) | undefined;
  contentType?: string | undefined;
  timeoutMs?: number | undefined;
}

/** JSON has no NaN or Infinity; MLflow reads them as these strings. */
function metricJson(entry: MetricEntry): Record<string, unknown> {
  const value = Number.isNaN(entry.value) ? 'NaN' : entry.value === Infinity ? 'Infinity' : entry.value === -Infinity ? '-Infinity' : entry.value;
  return { key: entry.key, value, timestamp: Math.round(entry.timestamp), step: Math.round(entry.step) };
}

/** The bytes one log-batch call carries, as MLflow measures its 1 MB limit. */
export function logBatchBody(runId: string, metrics: readonly MetricEntry[], params: readonly KeyValue[], tags: readonly KeyValue[]): string {
  return JSON.stringify({ run_id: runId, metrics: metrics.map(metricJson), params, tags });
}

export class MlflowClient {
  private checkedVersion: Promise<string | null> | null = null;

  constructor(
    readonly server: TrackingServer,
    private readonly retry: RetryPolicy = DEFAULT_RETRY,
    private readonly sleep: (ms: number) => Promise<void> = realDelay,
  ) {}

  /**
   * The server's version (GET /version), checked once per client: an MLflow older than MIN_MLFLOW_VERSION is
   * refused; a server without the endpoint is taken on trust until a call says otherwise.
   */
  version(): Promise<string | null> {
    this.checkedVersion ??= (async () => {
      let text: string;
      try {
        text = (await (await this.call({ method: 'GET', path: '/version' })).text()).trim();
      } catch (error) {
        if (error instanceof MlflowError && (error.kind === 'not_mlflow' || error.kind === 'not_found')) return null;
        throw error;
      }
      const match = /^(\d+)\.(\d+)/u.exec(text);
      if (!match) return null;
      const [major, minor] = [Number(match[1]), Number(match[2])];
      if (major < MIN_MLFLOW_VERSION[0] || (major === MIN_MLFLOW_VERSION[0] && minor < MIN_MLFLOW_VERSION[1])) {
        throw new MlflowError(
          'version',
          `${this.server.uri} runs MLflow ${text}; Tuning Bench needs MLflow ${MIN_MLFLOW_VERSION.join('.')} or newer (its REST API 2.0 with tag search and the artifact proxy): upgrade the server (pip install -U mlflow)`,
        );
      }
      return text;
    })();
    return this.checkedVersion;
  }

  async getExperimentByName(name: string): Promise<MlflowExperiment | null> {
    try {
      const answer = await this.json('GET', '/api/2.0/mlflow/experiments/get-by-name', { query: { experiment_name: name } });
      return z.object({ experiment: mlflowExperiment }).parse(answer).experiment;
    } catch (error) {
      if (error instanceof MlflowError && error.errorCode === 'RESOURCE_DOES_NOT_EXIST') return null;
      throw error;
    }
  }

  /** The experiment's id; one made meanwhile by someone else is found instead. */
  async createExperiment(name: string, tags: readonly KeyValue[] = []): Promise<string> {
    try {
      const answer = await this.json('POST', '/api/2.0/mlflow/experiments/create', { body: { name, tags } });
      return z.object({ experiment_id: z.string() }).parse(answer).experiment_id;
    } catch (error) {
      if (error instanceof MlflowError && error.errorCode === 'RESOURCE_ALREADY_EXISTS') {
        const found = await this.getExperimentByName(name);
        if (found) return found.experiment_id;
      }
      throw error;
    }
  }

  async getRun(runId: string): Promise<MlflowRun | null> {
    try {
      const answer = await this.json('GET', '/api/2.0/mlflow/runs/get', { query: { run_id: runId } });
      return z.object({ run: mlflowRun }).parse(answer).run;
    } catch (error) {
      if (error instanceof MlflowError && (error.errorCode === 'RESOURCE_DOES_NOT_EXIST' || error.errorCode === 'INVALID_PARAMETER_VALUE')) return null;
      throw error;
    }
  }

  /** One page of runs matching an MLflow filter (`tags.\`x\` = 'y'`), active ones only. */
  async searchRuns(
    experimentIds: readonly string[],
    filter: string,
    pageToken?: string,
    maxResults = 1000,
  ): Promise<{ runs: MlflowRun[]; nextPageToken: string | null }> {
    const body: Record<string, unknown> = { experiment_ids: experimentIds, filter, max_results: maxResults, run_view_type: 'ACTIVE_ONLY' };
    if (pageToken) body.page_token = pageToken;
    const answer = await this.json('POST', '/api/2.0/mlflow/runs/search', { body });
    const parsed = z.object({ runs: z.array(mlflowRun).default([]), next_page_token: z.string().optional() }).parse(answer);
    return { runs: parsed.runs, nextPageToken: parsed.next_page_token || null };
  }

  async createRun(request: { experimentId: string; runName: string; startTime: number; tags: readonly KeyValue[] }): Promise<MlflowRun> {
    const answer = await this.json('POST', '/api/2.0/mlflow/runs/create', {
      body: { experiment_id: request.experimentId, run_name: request.runName, start_time: Math.round(request.startTime), tags: request.tags },
    });
    return z.object({ run: mlflowRun }).parse(answer).run;
  }

  /** One log-batch call; the caller keeps it within MLflow's limits (LogBatcher). */
  async logBatch(runId: string, metrics: readonly MetricEntry[], params: readonly KeyValue[], tags: readonly KeyValue[]): Promise<void> {
    const body = logBatchBody(runId, metrics, params, tags);
    await this.call({ method: 'POST', path: '/api/2.0/mlflow/runs/log-batch', body: () => body, contentType: 'application/json' });
  }

  async updateRun(runId: string, update: { status: MlflowRunStatus; endTime: number | null; runName?: string }): Promise<void> {
    const body: Record<string, unknown> = { run_id: runId, status: update.status };
    if (update.endTime !== null) body.end_time = Math.round(update.endTime);
    if (update.runName !== undefined) body.run_name = update.runName;
    await this.json('POST', '/api/2.0/mlflow/runs/update', { body });
  }

  /** One page of a metric's history. */
  async metricHistory(runId: string, key: string, pageToken?: string, maxResults = 25_000): Promise<{ metrics: MlflowMetric[]; nextPageToken: string | null }> {
    const query: Record<string, string | number> = { run_id: runId, metric_key: key, max_results: maxResults };
    if (pageToken) query.page_token = pageToken;
    const answer = await this.json('GET', '/api/2.0/mlflow/metrics/get-history', { query });
    const parsed = z.object({ metrics: z.array(mlflowMetric).default([]), next_page_token: z.string().optional() }).parse(answer);
    return { metrics: parsed.metrics, nextPageToken: parsed.next_page_token || null };
  }

  /** Uploads one artifact through the server's artifact proxy (`mlflow-artifacts`), replacing one at the same path. */
  async uploadArtifact(artifactUri: string, path: string, body: () => Body, contentType: string): Promise<void> {
    await this.call({ method: 'PUT', path: artifactProxyPath(artifactUri, path), body, contentType, timeoutMs: this.retry.uploadTimeoutMs });
  }

  /** An artifact's content, or null when there is none at that path. */
  async downloadArtifact(artifactUri: string, path: string): Promise<Response | null> {
    try {
      return await this.call({ method: 'GET', path: artifactProxyPath(artifactUri, path), timeoutMs: this.retry.uploadTimeoutMs });
    } catch (error) {
      if (error instanceof MlflowError && (error.kind === 'not_found' || error.kind === 'not_mlflow')) return null;
      throw error;
    }
  }

  private async json(method: 'GET' | 'POST', path: string, options: { query?: Record<string, string | number>; body?: unknown }): Promise<unknown> {
    const text = options.body === undefined ? undefined : JSON.stringify(options.body);
    const response = await this.call({
      method,
      path,
      query: options.query,
      body: text === undefined ? undefined : () => text,
      contentType: 'application/json',
    });
    const answer = await response.text();
    try {
      return JSON.parse(answer) as unknown;
    } catch {
      throw new MlflowError(
        'not_mlflow',
        `${this.server.uri}${path} answered with something other than JSON (${answer.slice(0, 80)}…): is ${this.server.uri} an MLflow tracking server?`,
        response.status,
      );
    }
  }

  /** One HTTP call with retries; a non-2xx answer becomes an MlflowError that says what to do. */
  private async call(options: CallOptions): Promise<Response> {
    const url = new URL(`${this.server.uri}${options.path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = {};
    if (this.server.authorization !== null) headers.authorization = this.server.authorization;
    if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    let lastFailure = '';
    for (let attempt = 0; attempt <= this.retry.retries; attempt += 1) {
      if (attempt > 0) await this.sleep(this.retry.baseDelayMs * 2 ** (attempt - 1));
      let response: Response;
      try {
        const body = options.body?.() ?? null;
        response = await fetch(url, {
          method: options.method,
          headers,
          body,
          signal: AbortSignal.timeout(options.timeoutMs ?? this.retry.timeoutMs),
          // Node's fetch sends a stream only half-duplex, and says so.
          ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
        } as RequestInit);
      } catch (error) {
        lastFailure = networkReason(error);
        continue;
      }
      if (response.ok) return response;
      if (RETRY_STATUSES.has(response.status)) {
        lastFailure = `HTTP ${response.status} ${response.statusText}`;
        await response.body?.cancel();
        continue;
      }
      throw await this.refusal(response, options);
    }
    const waited = Array.from({ length: this.retry.retries }, (_, i) => this.retry.baseDelayMs * 2 ** i).reduce((a, b) => a + b, 0);
    throw new MlflowError(
      'unreachable',
      `cannot reach the MLflow server at ${this.server.uri} (${lastFailure}; ${this.retry.retries + 1} tries over ${(waited / 1000).toFixed(1)} s): is it running and is the address right? (start one with \`mlflow server --host 127.0.0.1 --port 5000\`)`,
    );
  }

  private async refusal(response: Response, options: CallOptions): Promise<MlflowError> {
    const text = await response.text().catch(() => '');
    let errorCode: string | null = null;
    let message = text.trim().slice(0, 500);
    try {
      const parsed = JSON.parse(text) as { error_code?: unknown; message?: unknown };
      if (typeof parsed.error_code === 'string') errorCode = parsed.error_code;
      if (typeof parsed.message === 'string') message = parsed.message;
    } catch {
      // An answer that is not MLflow's JSON: a proxy's page, another server.
    }
    const where = `${this.server.uri} (${options.method} ${options.path})`;
    const status = response.status;
    if (status === 401) {
      const given =
        this.server.credentials === 'token'
          ? 'it refused the token in MLFLOW_TRACKING_TOKEN'
          : this.server.credentials === 'basic'
            ? `it refused the user name and password given for "${this.server.user ?? ''}" (MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD)`
            : 'no credentials were given: set MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD (basic auth) or MLFLOW_TRACKING_TOKEN (a bearer token)';
      return new MlflowError('auth', `the MLflow server at ${this.server.uri} asks who you are (HTTP 401): ${given}`, status, errorCode);
    }
    if (status === 403) {
      return new MlflowError(
        'forbidden',
        `the MLflow server at ${this.server.uri} refused ${this.server.user ? `user "${this.server.user}"` : 'this request'} (HTTP 403, ${message || 'permission denied'}): ask its admin for EDIT permission on the experiment`,
        status,
        errorCode,
      );
    }
    if (status === 404 && errorCode === null) {
      return new MlflowError(
        'not_mlflow',
        `${where} answered 404 Not Found: is ${this.server.uri} an MLflow tracking server (MLflow ${MIN_MLFLOW_VERSION.join('.')} or newer)? Give the address its UI is served at.`,
        status,
      );
    }
    if (status === 404 || errorCode === 'RESOURCE_DOES_NOT_EXIST') return new MlflowError('not_found', `${where}: ${message}`, status, errorCode);
    if (status === 501 || errorCode === 'ENDPOINT_NOT_FOUND') {
      return new MlflowError(
        'version',
        `${where} does not offer this call (${message || `HTTP ${status}`}): the server's MLflow is too old or not serving artifacts; upgrade it, or start it with --serve-artifacts`,
        status,
        errorCode,
      );
    }
    if (status >= 500)
      return new MlflowError(
        'server',
        `the MLflow server at ${this.server.uri} failed (HTTP ${status}) on ${options.method} ${options.path}: ${message}`,
        status,
        errorCode,
      );
    return new MlflowError(
      'refused',
      `the MLflow server at ${this.server.uri} refused ${options.method} ${options.path} (HTTP ${status}${errorCode ? `, ${errorCode}` : ''}): ${message}`,
      status,
      errorCode,
    );
  }
}

/** The proxy's address of an artifact of a run whose artifact root is `mlflow-artifacts:/...` (or `mlflow-artifacts://host/...`). */
export function artifactProxyPath(artifactUri: string, path: string): string {
  const match = /^mlflow-artifacts:(?:\/\/[^/]*)?\/?(.*)$/u.exec(artifactUri);
  if (!match) {
    throw new MlflowError(
      'version',
      `the run's artifacts go to ${artifactUri}, which only the server's own machine can write: start the server with --serve-artifacts (the default since MLflow 2.0) so artifacts go through it`,
    );
  }
  const root = match[1]!.split('/').filter(Boolean).map(encodeURIComponent).join('/');
  const file = path.split('/').filter(Boolean).map(encodeURIComponent).join('/');
  return `/api/2.0/mlflow-artifacts/artifacts/${root}/${file}`;
}

/** Whether the run's artifacts go through the server's proxy, so this client can upload them. */
export function proxiesArtifacts(artifactUri: string | undefined): boolean {
  return artifactUri !== undefined && artifactUri.startsWith('mlflow-artifacts:');
}

function networkReason(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'no answer in time';
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code) return cause.code === 'ECONNREFUSED' ? 'connection refused' : cause.code;
    return cause?.message ?? error.message;
  }
  return String(error);
}
