// A real MLflow tracking server for the tests that publish to one: which `mlflow` runs it, one server per test file
// (a free port, a temp SQLite backend and artifact root), stopped after. Where MLflow is missing these tests FAIL with
// what to install; they skip only when asked to (TUNING_BENCH_SKIP_MLFLOW_TESTS=1), and say so.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** `.ci/run` installs MLflow in this virtual environment; TUNING_BENCH_MLFLOW names another `mlflow` executable. */
export const MLFLOW = process.env.TUNING_BENCH_MLFLOW || path.join(REPO_ROOT, '.ci/mlflow-venv/bin/mlflow');
/** The version `.ci/run` installs (the tests were checked against it). */
export const MLFLOW_VERSION = '3.17.2';
const OPT_OUT = 'TUNING_BENCH_SKIP_MLFLOW_TESTS';

/** A stock server under load starts in 15-60 s on these machines (its first start migrates the SQLite backend). */
const START_TIMEOUT_MS = 180_000;

function probeMlflow(): string | null {
  const probe = spawnSync(MLFLOW, ['--version'], { encoding: 'utf8', timeout: 120_000 });
  if (probe.error) return `${MLFLOW} cannot be run (${probe.error.message})`;
  if (probe.status !== 0) return `${MLFLOW} --version failed (${probe.stderr.trim().split('\n').at(-1) ?? `exit ${probe.status}`})`;
  return null;
}

/** Why this machine cannot run the MLflow tests, or null when it can. */
export const mlflowMissing: string | null = probeMlflow();

/** True only where MLflow is missing and the user chose to skip these tests; says so for the file named. */
export function skipMlflowTests(file: string): boolean {
  if (mlflowMissing === null || process.env[OPT_OUT] !== '1') return false;
  console.warn(`${file}: SKIPPED on purpose (${OPT_OUT}=1): ${mlflowMissing}`);
  return true;
}

/** Fails the test that calls it, with what to install, where MLflow is missing and the tests were not skipped. */
export function assertMlflow(): void {
  if (mlflowMissing === null) return;
  throw new Error(
    `${mlflowMissing}. These tests publish to a real MLflow tracking server: install it as .ci/run does ` +
      `(python3 -m venv .ci/mlflow-venv && .ci/mlflow-venv/bin/pip install 'mlflow[auth]==${MLFLOW_VERSION}', about 850 MB), ` +
      `or name an mlflow executable in TUNING_BENCH_MLFLOW, or set ${OPT_OUT}=1 to skip them.`,
  );
}

export interface MlflowServer {
  uri: string;
  dir: string;
  /** With `auth`: the admin's credentials, for reading back. */
  admin: { user: string; password: string } | null;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * `mlflow server` on a free port with a temp SQLite backend and artifact root, one worker; with `auth`, MLflow's
 * basic-auth app (`--app-name basic-auth`, the admin given). Resolves once /health answers.
 */
export async function startMlflowServer(options: { auth?: boolean } = {}): Promise<MlflowServer> {
  assertMlflow();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-mlflow-'));
  const port = await freePort();
  const admin = options.auth ? { user: 'admin', password: 'tb-test-secret-9' } : null;
  const env: NodeJS.ProcessEnv = { ...process.env, MLFLOW_HOME: dir };
  const args = [
    'server',
    '--backend-store-uri',
    `sqlite:///${path.join(dir, 'mlflow.db')}`,
    '--artifacts-destination',
    path.join(dir, 'artifacts'),
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--workers',
    '1',
  ];
  if (admin) {
    const config = path.join(dir, 'basic_auth.ini');
    fs.writeFileSync(
      config,
      `[mlflow]\ndefault_permission = READ\ndatabase_uri = sqlite:///${path.join(dir, 'auth.db')}\nadmin_username = ${admin.user}\nadmin_password = ${admin.password}\n` +
        'authorization_function = mlflow.server.auth:authenticate_request_basic_auth\n',
    );
    env.MLFLOW_AUTH_CONFIG_PATH = config;
    env.MLFLOW_FLASK_SERVER_SECRET_KEY = 'tuning-bench-test';
    args.push('--app-name', 'basic-auth');
  }
  // Its own process group: the server starts workers of its own, and stopping it stops them all.
  const child = spawn(MLFLOW, args, { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const uri = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`mlflow server exited ${child.exitCode}:\n${log.slice(-4000)}`);
    try {
      if ((await fetch(`${uri}/health`)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() - started > START_TIMEOUT_MS) {
      await stopGroup(child);
      throw new Error(`mlflow server did not answer /health in ${START_TIMEOUT_MS / 1000} s:\n${log.slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    uri,
    dir,
    admin,
    async stop() {
      await stopGroup(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }, 10_000);
  await exited;
  clearTimeout(timer);
}

/** Reads back through MLflow's REST API, as any client of the server would. */
export async function mlflowApi<T = Record<string, unknown>>(
  server: Pick<MlflowServer, 'uri' | 'admin'>,
  method: 'GET' | 'POST',
  endpoint: string,
  payload: Record<string, unknown> = {},
): Promise<T> {
  const url = new URL(`${server.uri}/api/2.0/mlflow/${endpoint}`);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (server.admin) headers.authorization = `Basic ${Buffer.from(`${server.admin.user}:${server.admin.password}`).toString('base64')}`;
  if (method === 'GET') for (const [key, value] of Object.entries(payload)) url.searchParams.set(key, String(value));
  const response = await fetch(url, { method, headers, ...(method === 'POST' ? { body: JSON.stringify(payload) } : {}) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${endpoint}: HTTP ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

export interface ReadRun {
  info: { run_id: string; experiment_id: string; status: string; run_name: string; artifact_uri: string; start_time: number; end_time?: number };
  data: {
    params?: Array<{ key: string; value: string }>;
    tags?: Array<{ key: string; value: string }>;
    metrics?: Array<{ key: string; value: number | string; step: number; timestamp: number }>;
  };
}

/** Every run of an experiment, as the server has them. */
export async function allRuns(server: Pick<MlflowServer, 'uri' | 'admin'>, experimentName: string): Promise<ReadRun[]> {
  const { experiment } = await mlflowApi<{ experiment: { experiment_id: string } }>(server, 'GET', 'experiments/get-by-name', {
    experiment_name: experimentName,
  });
  const { runs } = await mlflowApi<{ runs?: ReadRun[] }>(server, 'POST', 'runs/search', { experiment_ids: [experiment.experiment_id], max_results: 1000 });
  return runs ?? [];
}

export function tagsOf(run: ReadRun): Record<string, string> {
  return Object.fromEntries((run.data.tags ?? []).map((t) => [t.key, t.value]));
}

export function paramsOf(run: ReadRun): Record<string, string> {
  return Object.fromEntries((run.data.params ?? []).map((p) => [p.key, p.value]));
}

/** A metric's whole history. */
export async function history(
  server: Pick<MlflowServer, 'uri' | 'admin'>,
  runId: string,
  key: string,
): Promise<Array<{ value: number | string; step: number; timestamp: number }>> {
  const { metrics } = await mlflowApi<{ metrics?: Array<{ value: number | string; step: number; timestamp: number }> }>(server, 'GET', 'metrics/get-history', {
    run_id: runId,
    metric_key: key,
    max_results: 25000,
  });
  return metrics ?? [];
}

/** An artifact's bytes through the server's proxy. */
export async function artifact(server: Pick<MlflowServer, 'uri' | 'admin'>, run: ReadRun, file: string): Promise<Buffer | null> {
  const root = run.info.artifact_uri.replace(/^mlflow-artifacts:(\/\/[^/]*)?\/?/u, '');
  const headers: Record<string, string> = {};
  if (server.admin) headers.authorization = `Basic ${Buffer.from(`${server.admin.user}:${server.admin.password}`).toString('base64')}`;
  const response = await fetch(`${server.uri}/api/2.0/mlflow-artifacts/artifacts/${root}/${file}`, { headers });
  return response.ok ? Buffer.from(await response.arrayBuffer()) : null;
}
