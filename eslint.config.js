// Lint rules, chief among them the layers of STYLE.md: which folder may import which.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];
const noElectron = { name: 'electron', message: 'the engine and its Node faces run without Electron: no electron import here' };

/** One `no-restricted-imports` rule from forbidden module names and path patterns. */
function restrict({ names = [], patterns = [] }) {
  return ['error', { paths: names, patterns }];
}

const layer = (what, why) => ({ group: what, message: why });

export default tseslint.config(
  { ignores: ['dist/', '.vite/', 'out/', 'node_modules/', 'test-results/', 'playwright-report/', 'resources/workloads/**/*.py'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', __dirname: 'readonly', __filename: 'readonly', window: 'readonly', document: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    files: ['electron/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict({
        names: [noElectron, ...nodeBuiltins.map((name) => ({ name, message: 'shared code runs in the renderer too: no Node modules' }))],
        patterns: [layer(['**/core/**', '**/main/**', '**/preload/**', '**/server/**', '**/cli/**', '**/renderer/**'], 'electron/shared imports nothing of ours')],
      }),
    },
  },
  {
    files: ['electron/core/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict({
        names: [noElectron, { name: 'react', message: 'the engine has no UI' }],
        patterns: [
          layer(['**/main/**', '**/preload/**', '**/server/**', '**/cli/**', '**/renderer/**', 'electron/*'], 'electron/core imports only electron/shared'),
        ],
      }),
    },
  },
  {
    files: ['electron/server/**/*.ts', 'electron/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict({
        names: [noElectron],
        patterns: [layer(['**/main/**', '**/preload/**', '**/renderer/**', 'electron/*'], 'a Node face imports only core and shared')],
      }),
    },
  },
  {
    files: ['electron/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict({
        patterns: [layer(['**/core/**', '**/main/**', '**/server/**', '**/cli/**', '**/renderer/**'], 'the preload imports only electron/shared')],
      }),
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': restrict({
        names: [
          { name: 'electron', message: 'the renderer talks to the engine only through the bridge' },
          ...nodeBuiltins.map((name) => ({ name, message: 'the renderer runs in a browser: no Node modules' })),
          { name: 'better-sqlite3', message: 'the renderer never touches the database' },
          { name: 'node-pty', message: 'the renderer never touches processes' },
        ],
        patterns: [
          layer(
            ['**/electron/core/**', '**/electron/main/**', '**/electron/preload/**', '**/electron/server/**', '**/electron/cli/**'],
            'the renderer imports only electron/shared',
          ),
        ],
      }),
    },
  },
);
