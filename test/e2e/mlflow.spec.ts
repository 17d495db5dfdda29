// Publish to MLflow in the UI, against a real MLflow tracking server started by this file: a run published from its
// page with a link into MLflow's UI (opened, and looked at), a sweep and its comparison, the setting that publishes
// every finished run on its own, and a run another box published pulled back beside a local one, its machine stated.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { expect, REPO_ROOT, screenshot, test } from './serverFixture.js';
import { allRuns, skipMlflowTests, startMlflowServer, tagsOf, type MlflowServer } from '../helpers/mlflow.js';
import { makeTempDir } from '../helpers/tempCore.js';

const execFileAsync = promisify(execFile);
const NO_GPU = { TUNING_BENCH_NVIDIA_SMI: '', PATH: '/usr/bin:/bin' };
/** A sweep of four runs is some fifty calls to a one-worker server; on a busy two-core machine that took up to 20 s. */
const PUBLISH_TIMEOUT_MS = 90_000;

test.skip(skipMlflowTests('mlflow.spec.ts'), 'TUNING_BENCH_SKIP_MLFLOW_TESTS=1 and no MLflow here');

let mlflow: MlflowServer;
test.beforeAll(async () => {
  test.setTimeout(240_000);
  mlflow = await startMlflowServer();
});
test.afterAll(async () => mlflow?.stop());

/** The CLI on a database, as a person on the same box would run it. */
async function cli(db: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ stdout: string; stderr: string }> {
  return execFileAsync(process.execPath, [path.join(REPO_ROOT, 'bin/tuning-bench.js'), '--db', db, ...args], {
    env: { ...process.env, ...NO_GPU, ...env },
    timeout: 120_000,
  });
}

test.describe('Publish to MLflow', () => {
  test.use({ serverEnv: NO_GPU });

  test("a run from its page: the MLflow run made, the link into MLflow's UI, and the setting that publishes on its own", async ({ page, server }) => {
    test.setTimeout(180_000);
    const run = JSON.parse((await cli(server.dbPath, ['run', '--json', '--workload', 'synthetic', '--set', 'steps=60'])).stdout) as { id: number };
    await page.goto(`${server.url}#/runs/${run.id}`);
    await page.getByTestId('mlflow-menu').locator('summary').click();
    await page.getByTestId('mlflow-uri').fill(mlflow.uri);
    await page.getByTestId('mlflow-experiment').fill('from the ui');
    await page.getByTestId('mlflow-publish').click();
    await expect(page.getByTestId('mlflow-result')).toContainText('1 created', { timeout: PUBLISH_TIMEOUT_MS });
    const [remote] = await allRuns(mlflow, 'from the ui');
    expect(tagsOf(remote!)['tuning_bench.run_id']).toBe(String(run.id));
    const link = page.getByTestId('mlflow-result-link');
    await expect(link).toHaveAttribute('href', `${mlflow.uri}/#/experiments/${remote!.info.experiment_id}/runs/${remote!.info.run_id}`);
    await expect(page.getByTestId('mlflow-records')).toContainText(`Published to ${mlflow.uri}, experiment “from the ui”`);
    await screenshot(page, 'mlflow-publish-run');

    // The header keeps a link to it; it opens MLflow's own page of the run.
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('mlflow-link')).toHaveAttribute('href', /runs\/[0-9a-f]{32}$/u);
    const [mlflowPage] = await Promise.all([page.context().waitForEvent('page'), page.getByTestId('mlflow-link').click()]);
    await expect(mlflowPage.getByText(`#${run.id} synthetic`).first()).toBeVisible({ timeout: 60_000 });
    await expect(mlflowPage.getByText('tuning_bench.exit_class').first()).toBeVisible({ timeout: 30_000 });
    await screenshot(mlflowPage, 'mlflow-ui-run');
    // Its telemetry as MLflow's own system metrics, charted by MLflow.
    await mlflowPage.getByRole('tab', { name: 'System metrics' }).click();
    // Each chart is headed by its metric's name, which MLflow 3.17 shows without the system/ prefix; text elsewhere that has the prefix
    // is there only while the charts load, so waiting for it raced the drawing (seen once in CI).
    await expect(mlflowPage.getByRole('heading', { name: /^(system\/)?cpu_utilization_percentage$/u }).first()).toBeVisible({ timeout: 30_000 });
    await screenshot(mlflowPage, 'mlflow-ui-system-metrics');
    await mlflowPage.close();

    // The setting: every finished run is published on its own, whichever face records it (here the CLI on the same database).
    await page.getByTestId('mlflow-menu').locator('summary').click();
    await page.getByTestId('mlflow-auto').check();
    await expect(page.getByTestId('mlflow-auto')).toBeChecked();
    const next = await cli(server.dbPath, ['run', '--workload', 'synthetic', '--set', 'steps=30']);
    expect(next.stderr).toContain(`published run ${run.id + 1} to ${mlflow.uri}`);
    expect(await allRuns(mlflow, 'from the ui')).toHaveLength(2);
  });

  test('a sweep and its comparison: a parent run with a child per run, the verdicts as tags', async ({ page, server }) => {
    test.setTimeout(240_000);
    const sweep = JSON.parse(
      (
        await cli(server.dbPath, [
          'sweep',
          '--json',
          '--workload',
          'synthetic',
          '--no-wait-idle',
          '--set',
          'steps=40',
          '--vary',
          'batch=8,16',
          '--repeats',
          '2',
        ])
      ).stdout,
    ) as { id: number };
    await page.goto(`${server.url}#/sweeps/${sweep.id}`);
    await page.getByTestId('mlflow-menu').locator('summary').click();
    await page.getByTestId('mlflow-uri').fill(mlflow.uri);
    await page.getByTestId('mlflow-experiment').fill('sweeps from the ui');
    await page.getByTestId('mlflow-publish').click();
    await expect(page.getByTestId('mlflow-result')).toContainText('5 created', { timeout: PUBLISH_TIMEOUT_MS });
    await screenshot(page, 'mlflow-publish-sweep');
    const runs = await allRuns(mlflow, 'sweeps from the ui');
    const parent = runs.find((r) => tagsOf(r)['tuning_bench.kind'] === 'sweep')!;
    expect(runs.filter((r) => tagsOf(r)['mlflow.parentRunId'] === parent.info.run_id)).toHaveLength(4);

    // MLflow's UI shows the sweep's run with its comparison among its artifacts.
    const [mlflowPage] = await Promise.all([page.context().waitForEvent('page'), page.getByTestId('mlflow-result-link').click()]);
    await expect(mlflowPage.getByText('synthetic ladder').first()).toBeVisible({ timeout: 60_000 });
    await mlflowPage.getByRole('tab', { name: 'Artifacts' }).click();
    await mlflowPage.getByText('comparison', { exact: true }).first().click();
    await mlflowPage.getByText('comparison.md', { exact: true }).click();
    await expect(mlflowPage.getByText('faster').first()).toBeVisible({ timeout: 30_000 });
    await screenshot(mlflowPage, 'mlflow-ui-sweep');
    await mlflowPage.close();

    // The comparison of the sweep, published as a run of its own; publishing the sweep again changes nothing.
    await page.goto(`${server.url}#/compare?sweeps=${sweep.id}`);
    await expect(page.getByTestId('compare-view')).toHaveAttribute('data-ready', 'true');
    await page.getByTestId('mlflow-menu').locator('summary').click();
    await page.getByTestId('mlflow-uri').fill(mlflow.uri);
    await page.getByTestId('mlflow-experiment').fill('sweeps from the ui');
    await page.getByTestId('mlflow-publish').click();
    await expect(page.getByTestId('mlflow-result')).toContainText('5 unchanged, 1 created', { timeout: PUBLISH_TIMEOUT_MS });
    await screenshot(page, 'mlflow-publish-comparison');
    expect(await allRuns(mlflow, 'sweeps from the ui')).toHaveLength(6);
  });

  test('a run another box published, pulled back beside a local one: read-only, its machine stated, no verdict across machines', async ({ page, server }) => {
    test.setTimeout(180_000);
    // The other box: its own database; its run recorded on a host of its own.
    const otherDb = path.join(makeTempDir('tb-other-box-'), 'runs.db');
    const theirs = JSON.parse((await cli(otherDb, ['run', '--json', '--workload', 'synthetic', '--set', 'steps=60', '--set', 'batch=16'])).stdout) as {
      id: number;
    };
    const db = new Database(otherDb);
    db.prepare("UPDATE runs SET fingerprint_json = json_set(coalesce(fingerprint_json, '{}'), '$.hostname', 'gpu-box-2') WHERE id = ?").run(theirs.id);
    db.close();
    await cli(otherDb, ['publish', String(theirs.id), '--mlflow', mlflow.uri, '--experiment', 'lab']);

    const ours = JSON.parse((await cli(server.dbPath, ['run', '--json', '--workload', 'synthetic', '--set', 'steps=60'])).stdout) as { id: number };
    const pulled = JSON.parse((await cli(server.dbPath, ['import-mlflow', mlflow.uri, '--experiment', 'lab', '--json'])).stdout) as {
      imported: Array<{ id: number }>;
    };
    const imported = pulled.imported[0]!.id;

    await page.goto(`${server.url}#/runs/${imported}`);
    await expect(page.getByTestId('run-origin')).toContainText('recorded on gpu-box-2');
    await expect(page.getByTestId(`run-origin-${imported}`)).toHaveText('from gpu-box-2');
    await expect(page.getByTestId('mlflow-menu')).toHaveCount(0);
    await screenshot(page, 'mlflow-pulled-back-run');

    await page.goto(`${server.url}#/compare?runs=${ours.id},${imported}&by=run`);
    await expect(page.getByTestId('compare-view')).toHaveAttribute('data-ready', 'true');
    const row = page.getByTestId('compare-row-1');
    await expect(row.getByTestId('row-machine')).toHaveText(/^on gpu-box-2/u);
    await expect(row.getByTestId('row-verdict')).toHaveText('no speedup');
    await expect(row).toContainText('no speedup across machines');
    await screenshot(page, 'mlflow-compare-machines');
    // The box follows the address (the route), so it is clicked, then seen checked.
    await page.getByTestId('across-machines').click();
    await expect(page.getByTestId('across-machines')).toBeChecked();
    await expect(page).toHaveURL(/machines=across/u);
    await expect(row.getByTestId('row-speedup')).not.toHaveAttribute('data-value', '');
  });
});
