// Publishing to a real MLflow server with auth on (MLflow's own basic-auth app, started by this file): no credentials,
// wrong ones, a user without permission, a token it does not take, each said plainly; right ones publish. A token
// reaches a server behind a proxy that takes bearer tokens, as teams put MLflow behind one.
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EngineCore } from '../../electron/core/createCore.js';
import { createClient, dispatch, type ApiClient } from '../../electron/shared/api.js';
import { coreWithFakeGpu } from '../helpers/fakeGpu.js';
import { allRuns, mlflowApi, skipMlflowTests, startMlflowServer, tagsOf, type MlflowServer } from '../helpers/mlflow.js';
import type { TempCore } from '../helpers/tempCore.js';

const skip = skipMlflowTests('mlflowAuth.test.ts');
let server: MlflowServer;
beforeAll(async () => {
  if (!skip) server = await startMlflowServer({ auth: true });
}, 240_000);
afterAll(async () => server?.stop(), 60_000);

const temps: TempCore[] = [];
afterEach(async () => {
  for (const temp of temps.splice(0)) await temp.cleanup();
});

async function boxWithRun(env: NodeJS.ProcessEnv): Promise<{ core: EngineCore; api: ApiClient; runId: number }> {
  const temp = coreWithFakeGpu(undefined, {
    MLFLOW_TRACKING_USERNAME: undefined,
    MLFLOW_TRACKING_PASSWORD: undefined,
    MLFLOW_TRACKING_TOKEN: undefined,
    ...env,
  });
  temps.push(temp);
  const core = temp.core;
  const workload = core.store.workloads.getByName('synthetic')!;
  const run = await core.runner.waitForExit(core.runner.start({ workload, values: { steps: '30', batch: '8' } }).id);
  return { core, api: createClient((method, input) => dispatch(core.handlers, method, input)), runId: run.id };
}

describe.skipIf(skip)('an MLflow server with auth', () => {
  it('says which credentials to give, or that those given were refused; publishes with the right ones', async () => {
    const none = await boxWithRun({});
    await expect(none.api['mlflow.publish']({ runIds: [none.runId], trackingUri: server.uri })).rejects.toThrow(
      /asks who you are \(HTTP 401\): no credentials were given: set MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD .* or MLFLOW_TRACKING_TOKEN/u,
    );
    const wrong = await boxWithRun({ MLFLOW_TRACKING_USERNAME: 'admin', MLFLOW_TRACKING_PASSWORD: 'not-it' });
    await expect(wrong.api['mlflow.publish']({ runIds: [wrong.runId], trackingUri: server.uri })).rejects.toThrow(
      /refused the user name and password given for "admin"/u,
    );
    const token = await boxWithRun({ MLFLOW_TRACKING_TOKEN: 'abc' });
    await expect(token.api['mlflow.publish']({ runIds: [token.runId], trackingUri: server.uri })).rejects.toThrow(
      /refused the token in MLFLOW_TRACKING_TOKEN/u,
    );
    expect(await none.api['mlflow.publications']({})).toEqual([]);

    const right = await boxWithRun({ MLFLOW_TRACKING_USERNAME: server.admin!.user, MLFLOW_TRACKING_PASSWORD: server.admin!.password });
    const report = await right.api['mlflow.publish']({ runIds: [right.runId], trackingUri: server.uri, experiment: 'with auth' });
    expect(report.results[0]).toMatchObject({ result: 'created' });
    expect(await right.api['mlflow.settings']({})).toMatchObject({ credentials: 'basic' });
    const [remote] = await allRuns(server, 'with auth');
    expect(tagsOf(remote!)['tuning_bench.run_id']).toBe(String(right.runId));
    // Credentials are never kept: the record has the address only.
    expect((await right.api['mlflow.publications']({}))[0]!.trackingUri).toBe(server.uri);

    // Credentials written into the address are used, and dropped from what is kept.
    const inAddress = await boxWithRun({});
    const address = server.uri.replace('http://', `http://${server.admin!.user}:${server.admin!.password}@`);
    await inAddress.api['mlflow.publish']({ runIds: [inAddress.runId], trackingUri: address, experiment: 'with auth' });
    expect((await inAddress.api['mlflow.publications']({}))[0]!.trackingUri).toBe(server.uri);
    await expect(inAddress.api['mlflow.configure']({ trackingUri: address, autoPublish: true })).rejects.toThrow(/keeps no password/u);
  }, 180_000);

  it('says a user may not write to the experiment (HTTP 403)', async () => {
    await mlflowApi(server, 'POST', 'users/create', { username: 'reader', password: 'reader-password-1' });
    await mlflowApi(server, 'POST', 'experiments/create', { name: 'admins only' });
    const reader = await boxWithRun({ MLFLOW_TRACKING_USERNAME: 'reader', MLFLOW_TRACKING_PASSWORD: 'reader-password-1' });
    await expect(reader.api['mlflow.publish']({ runIds: [reader.runId], trackingUri: server.uri, experiment: 'admins only' })).rejects.toThrow(
      /refused user "reader" \(HTTP 403, .*\): ask its admin for EDIT permission/u,
    );
  }, 120_000);

  it('sends MLFLOW_TRACKING_TOKEN as a bearer token, as a proxy in front of MLflow takes it', async () => {
    // The proxy lets a request through with the right token, signing it in to MLflow as the admin.
    const proxy = http.createServer((request, response) => {
      if (request.headers.authorization !== 'Bearer team-token-7') {
        response.writeHead(401).end('token required');
        return;
      }
      const target = new URL(request.url!, server.uri);
      const basic = `Basic ${Buffer.from(`${server.admin!.user}:${server.admin!.password}`).toString('base64')}`;
      const upstream = http.request(target, { method: request.method, headers: { ...request.headers, host: target.host, authorization: basic } }, (answer) => {
        response.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(response);
      });
      request.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const proxied = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
      const box = await boxWithRun({ MLFLOW_TRACKING_TOKEN: 'team-token-7' });
      const report = await box.api['mlflow.publish']({ runIds: [box.runId], trackingUri: proxied, experiment: 'behind a proxy' });
      expect(report.results[0]).toMatchObject({ result: 'created' });
      expect(await allRuns(server, 'behind a proxy')).toHaveLength(1);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  }, 120_000);
});
