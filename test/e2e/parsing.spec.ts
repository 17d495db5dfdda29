// A log the parsers cannot read: the run says so, shows its numeric lines, and a regex saved from there parses it again.
import { expect, screenshot, test } from './serverFixture.js';

const OWN_FORMAT = ['training starts', 'epoch one: val_nll=2.50 lr=0.0010', 'epoch two: val_nll=2.25 lr=0.0009', 'done', ''].join('\n');

test('a run with no metrics offers a regex and parses again with it', async ({ page, server }) => {
  await page.goto(server.url);
  await page.getByTestId('import-log-button').click();
  await page.getByTestId('import-text').fill(OWN_FORMAT);
  await page.getByTestId('import-name').fill('own format');
  await page.getByTestId('import-submit').click();
  await expect(page.locator('.run-title h2')).toContainText('own format');

  const notice = page.getByTestId('no-metrics');
  await expect(notice).toContainText('No step time, throughput or loss was found');
  await expect(page.getByTestId('numeric-lines')).toContainText('epoch one: val_nll=2.50 lr=0.0010');
  await page.getByTestId('parsing-regex').fill('val_nll=(?<eval_loss>[\\d.]+)');
  await expect(page.getByTestId('regex-match-count')).toHaveText('2 matching lines');
  await screenshot(page, 'no-metrics');
  await page.getByTestId('reparse-with-regex').click();
  await expect(page.getByTestId('reparse-result')).toContainText('Now: 2 parsed values');
  // A loss now, still no step time: the panel stays, folded, for the half that is missing.
  await expect(page.getByTestId('no-metrics-summary')).toContainText('No step time or throughput found');
  await expect(notice).not.toHaveAttribute('open');
  await expect(page.locator('.run-title h2')).toContainText('own format 1 regex');

  // The workload made for it can be edited and removed from New run; the run stays.
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('workload-select').selectOption({ label: 'own format 1 regex' });
  await page.getByTestId('edit-workload').click();
  await expect(page.getByRole('form', { name: 'Edit workload' })).toBeVisible();
  await page.getByTestId('workload-name').fill('val nll reader');
  await page.getByTestId('save-workload').click();
  await expect(page.getByTestId('workload-select')).toContainText('val nll reader');
  await page.getByTestId('remove-workload').click();
  await page.getByTestId('confirm-remove-workload').click();
  await expect(page.getByTestId('workload-select')).not.toContainText('val nll reader');
});

test('work per step given in the New run form turns steps into tokens/s', async ({ page, server }) => {
  await page.goto(server.url);
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('workload-select').selectOption({ label: 'synthetic (builtin)' });
  await page.getByTestId('var-steps').fill('40');
  await page.getByTestId('per-step').fill('abc');
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('form-error')).toContainText('work per step is a positive number of tokens');
  await page.getByTestId('per-step').fill('2048');
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  await expect(page.getByTestId('reparse-run')).toBeVisible();
  await page.getByTestId('reparse-run').click();
  await expect(page.getByTestId('reparse-result')).toContainText(/Before: .* tokens\/s\. Now: .* tokens\/s\./u);
});

test('a typed command runs without a workload, its {placeholders} as variables', async ({ page, server }) => {
  await page.goto(server.url);
  await page.getByTestId('new-run-button').click();
  await page.getByTestId('source-typed').check();
  await page.getByTestId('typed-command').fill('for i in $(seq 1 {n}); do echo "step $i: loss 3.$i, 12.5 ms/step"; done');
  await page.getByTestId('typed-cwd').fill(server.dataDir);
  await page.getByTestId('var-n').fill('9');
  await expect(page.getByTestId('command-preview')).toContainText('seq 1 9');
  await screenshot(page, 'typed-command');
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  await expect(page.locator('.run-title h2')).toContainText('ad-hoc command');
  await expect(page.getByTestId('run-config')).toContainText('n=9');
});
