// Keyboard and narrow-window use (issue 28, items 13-15): the terminal holds Tab only while it is typed into (Esc
// leaves), and a finished run's terminal never holds it.
import type { Page } from '@playwright/test';
import { expect, screenshot, test } from './serverFixture.js';

test.use({ serverEnv: { INIT_CWD: '{dataDir}' } });

async function startTyped(page: Page, script: string): Promise<void> {
  await page.getByTestId('first-run-new-run').click();
  await page.getByTestId('source-typed').check();
  await page.getByTestId('typed-command').fill(script);
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('run-status')).toHaveText('running');
}

/** Whether the keyboard is in the terminal (xterm's hidden textarea). */
const inTerminal = (page: Page) => page.evaluate(() => document.activeElement?.classList.contains('xterm-helper-textarea') ?? false);

test('Tab goes to a running program until Esc leaves the terminal; a finished run lets Tab and Shift+Tab pass', async ({ page, server }) => {
  await page.goto(server.url);
  await startTyped(page, 'read line; echo "got [$line]"; read again');
  await page.locator('.xterm').click();
  expect(await inTerminal(page)).toBe(true);
  await page.keyboard.press('Tab');
  expect(await inTerminal(page)).toBe(true);
  await page.keyboard.press('Escape');
  expect(await inTerminal(page)).toBe(false);
  await page.keyboard.press('Tab');
  expect(await inTerminal(page)).toBe(false);
  // Back in, it types again.
  await page.locator('.xterm').click();
  await page.keyboard.type('hello');
  await page.keyboard.press('Enter');
  await expect(page.locator('.xterm-rows')).toContainText('got [');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('run-status')).toHaveText('succeeded');

  // Finished: the terminal is a log; Tab and Shift+Tab move on through the page.
  await page.locator('.xterm').click();
  expect(await inTerminal(page)).toBe(true);
  await page.keyboard.press('Tab');
  expect(await inTerminal(page)).toBe(false);
  await page.locator('.xterm').click();
  await page.keyboard.press('Shift+Tab');
  expect(await inTerminal(page)).toBe(false);
  await screenshot(page, 'keyboard-terminal-left');
});

test('at 900 px the sidebar folds away and the comparison fits: Verdict and Gate in view, empty GPU columns dropped', async ({ page, server }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 900, height: 800 });
  await page.goto(server.url);
  for (const steps of ['20', '30']) {
    await page.goto(`${server.url}#/new`);
    await page.getByTestId('source-typed').check();
    await page.getByTestId('typed-command').fill(`for i in $(seq 1 ${steps}); do echo "step $i: loss 2.$((99 - i)), 45 ms"; done`);
    await page.getByTestId('start-run').click();
    await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  }
  await page.getByTestId('runs-table-button').click();
  await page.getByTestId('select-run-1').check();
  await page.getByTestId('select-run-2').check();
  await page.getByTestId('compare-selected').click();
  await expect(page.getByTestId('compare-table')).toBeVisible();

  const sidebar = page.getByRole('complementary', { name: 'Runs' });
  await expect(sidebar).toBeVisible();
  await page.getByTestId('sidebar-toggle').click();
  await expect(sidebar).toBeHidden();
  await expect(page.getByTestId('sidebar-toggle')).toHaveAttribute('aria-expanded', 'false');

  const scroller = page.locator('.compare-table-scroll');
  const box = (await scroller.boundingBox())!;
  for (const name of ['Verdict', 'Gate']) {
    const header = (await page.getByTestId('compare-table').getByRole('columnheader', { name, exact: true }).boundingBox())!;
    expect(header.x + header.width).toBeLessThanOrEqual(box.x + box.width);
  }
  // No GPU on this machine: no VRAM, utilisation, power or energy column of dashes.
  await expect(page.getByTestId('compare-table').getByRole('columnheader', { name: 'VRAM' })).toHaveCount(0);
  await screenshot(page, 'layout-900-compare');

  // A column can be hidden, and comes back.
  await page.getByTestId('compare-columns').locator('summary').click();
  await page.getByTestId('compare-column-Step ms').uncheck();
  await expect(page.getByTestId('compare-table').getByRole('columnheader', { name: 'Step ms' })).toHaveCount(0);
  await page.getByTestId('compare-column-Step ms').check();
  await expect(page.getByTestId('compare-table').getByRole('columnheader', { name: 'Step ms' })).toHaveCount(1);

  // Unfolded again, and remembered over a reload.
  await page.getByTestId('sidebar-toggle').click();
  await expect(sidebar).toBeVisible();
  await page.getByTestId('sidebar-toggle').click();
  await page.reload();
  await expect(sidebar).toBeHidden();
});

test('the header says which GPU entry reads and which changes: GPU status (a look) and GPU control (settings), linked', async ({ page, server }) => {
  await page.goto(server.url);
  const nav = page.getByRole('navigation', { name: 'Views' });
  await expect(nav.getByRole('button', { name: 'GPU status' })).toBeVisible();
  await expect(nav.getByRole('button', { name: 'GPU control' })).toBeVisible();
  await expect(nav.getByRole('button', { name: 'GPU', exact: true })).toHaveCount(0);
  await nav.getByRole('button', { name: 'GPU status' }).click();
  const dialog = page.getByRole('dialog', { name: 'GPU status' });
  await expect(dialog).toContainText('reads only');
  await screenshot(page, 'header-gpu-status');
  await dialog.getByTestId('gpu-info-to-control').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('gpu-control')).toBeVisible();
});
