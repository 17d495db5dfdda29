// A shell-mode value is literal text wherever its placeholder sits: bare, "{v}" or '{v}'; run by a real /bin/sh.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expandWorkload } from '../../electron/core/runner/template.js';
import { makeTempDir } from '../helpers/tempCore.js';

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const HOSTILE_VALUES = ['plain', 'two words', '$(touch pwned)', '`touch pwned`', "it's", '"quoted"', "a'; touch pwned; echo '", '\\', '$HOME', ''];

function runScript(template: string, value: string): string {
  const expanded = expandWorkload(
    { name: 'w', command: [template], cwd: dir, env: {}, variables: [{ name: 'v', default: '' }], mode: 'shell' } as Parameters<typeof expandWorkload>[0],
    { v: value },
    { resources: '/r', node: '/n' },
  );
  const result = spawnSync(expanded.command[0]!, expanded.command.slice(1), { cwd: dir, encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

describe('shell-mode placeholders', () => {
  for (const [label, template, expected] of [
    ['bare', 'printf "%s|" {v}', (v: string) => `${v}|`],
    ['inside double quotes', 'printf "%s|" "[{v}]"', (v: string) => `[${v}]|`],
    ['inside single quotes', "printf '%s|' '[{v}]'", (v: string) => `[${v}]|`],
    ['inside double quotes with an escaped quote before', 'printf "%s|" "\\"{v}"', (v: string) => `"${v}|`],
  ] as const) {
    it(`keeps every value literal ${label}`, () => {
      dir = makeTempDir('tb-shell-');
      // Inside quotes or text a placeholder needs a value (shared/variables.ts): empty is refused, never run as ''.
      const needsValue = label !== 'bare';
      for (const value of HOSTILE_VALUES) {
        if (needsValue && value === '') expect(() => runScript(template, value)).toThrow(/\{v\} has no value/u);
        else expect(runScript(template, value), value).toBe(expected(value));
      }
      expect(fs.existsSync(path.join(dir, 'pwned'))).toBe(false);
    });
  }
});
