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

const coreNames = [noElectron, { name: 'react', message: 'the engine has no UI' }];
const coreFaces = layer(
  ['**/main/**', '**/preload/**', '**/server/**', '**/cli/**', '**/renderer/**', 'electron/*'],
  'electron/core imports only electron/shared',
);

/**
 * The engine's layers (docs/architecture.md), bottom to top: each folder of electron/core and the folders it may
 * import. Any other core folder, and createCore, is refused; `events.ts` (the contract's events) and `clock.ts`
 * (the injected time) are open to all.
 */
const SYSTEM = ['system'];
const DATA = [...SYSTEM, 'store', 'metrics', 'telemetry'];
const OUTPUT = [...DATA, 'ingest'];
const RUNS = [...OUTPUT, 'runner'];
const CORE_LAYERS = {
  system: [],
  store: [],
  metrics: ['system', 'store'],
  telemetry: ['system', 'store'],
  ingest: DATA,
  runner: OUTPUT,
  'gpu-control': RUNS,
  profile: RUNS,
  export: [],
  compare: [...RUNS, 'export'],
  experiments: [...RUNS, 'gpu-control'],
  publish: [...RUNS, 'compare'],
  // The knobs' ladder: sweeps (experiments) judged by compare's verdict and gate.
  tune: [...RUNS, 'compare', 'experiments', 'export'],
  workloads: [],
  // The application layer: what each method of the contract does, over the services createCore builds.
  app: [
    'system',
    'store',
    'metrics',
    'telemetry',
    'ingest',
    'runner',
    'gpu-control',
    'profile',
    'export',
    'compare',
    'experiments',
    'publish',
    'tune',
    'workloads',
  ],
};

/**
 * The engine's timers take its Clock (clock.ts), so a test moves time by hand. These files alone use Node's timers:
 * clock.ts (the real clock, and the few real-time waits on what lies outside the engine, each saying why) and the
 * worker threads, which no clock crosses.
 */
const REAL_TIME_FILES = ['electron/core/clock.ts', 'electron/core/ingest/outputWriterWorker.ts', 'electron/core/ingest/outputParserWorker.ts'];
const NODE_TIMERS = ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'].map((name) => ({
  name,
  message: 'an engine timer takes the injected Clock (clock.setTimeout); real time only through realDelay, realTimeout or realInterval of clock.ts, saying why',
}));

const rendererNames = [
  { name: 'electron', message: 'the renderer talks to the engine only through the bridge' },
  ...nodeBuiltins.map((name) => ({ name, message: 'the renderer runs in a browser: no Node modules' })),
  { name: 'better-sqlite3', message: 'the renderer never touches the database' },
  { name: 'node-pty', message: 'the renderer never touches processes' },
];
const rendererEngine = layer(
  ['**/electron/core/**', '**/electron/main/**', '**/electron/preload/**', '**/electron/server/**', '**/electron/cli/**'],
  'the renderer imports only electron/shared',
);

/**
 * The renderer's feature folders (docs/architecture.md): each uses shared/ and bridge/, never another feature, so no two
 * features lean on each other; what two features both need lives in shared/ (its folders are named apart from the
 * features', so these globs never match them). shared/ and bridge/ (the transport) use no feature; the app shell
 * (App.tsx, routes) composes them all.
 */
const RENDERER_FEATURES = ['gpu', 'runs', 'compare', 'sweeps'];

function rendererFolder(folder) {
  const refused = RENDERER_FEATURES.filter((feature) => feature !== folder);
  const may = RENDERER_FEATURES.includes(folder) ? 'uses only shared/ and bridge/, never another feature' : 'uses no feature folder';
  const border = layer(
    refused.map((feature) => `**/${feature}/**`),
    `renderer/src/${folder}/ ${may} (the borders in docs/architecture.md)`,
  );
  return {
    files: [`renderer/src/${folder}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': restrict({ names: rendererNames, patterns: refused.length > 0 ? [rendererEngine, border] : [rendererEngine] }),
    },
  };
}

function coreLayer(folder, allowed) {
  const refused = Object.keys(CORE_LAYERS).filter((other) => other !== folder && !allowed.includes(other));
  const may = allowed.length > 0 ? `imports only ${allowed.map((f) => `${f}/`).join(', ')} of the engine` : 'imports no other engine folder';
  return {
    files: [`electron/core/${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': restrict({
        names: coreNames,
        patterns: [
          coreFaces,
          layer([...refused.map((other) => `**/${other}/**`), '**/createCore*'], `electron/core/${folder}/ ${may} (the layers in docs/architecture.md)`),
        ],
      }),
    },
  };
}

export default tseslint.config(
  { ignores: ['dist/', '.vite/', 'out/', 'node_modules/', 'test-results/', 'playwright-report/', 'resources/workloads/**/*.py', '.ci/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        __dirname: 'readonly',
        __filename: 'readonly',
        window: 'readonly',
        document: 'readonly',
      },
    },
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
        patterns: [
          layer(['**/core/**', '**/main/**', '**/preload/**', '**/server/**', '**/cli/**', '**/renderer/**'], 'electron/shared imports nothing of ours'),
        ],
      }),
    },
  },
  {
    files: ['electron/core/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict({ names: coreNames, patterns: [coreFaces] }),
    },
  },
  // Later blocks replace the rule's options for their files, so each repeats the engine's own restrictions.
  ...Object.entries(CORE_LAYERS).map(([folder, allowed]) => coreLayer(folder, allowed)),
  {
    files: ['electron/core/**/*.ts'],
    ignores: REAL_TIME_FILES,
    rules: { 'no-restricted-globals': ['error', ...NODE_TIMERS] },
  },
  {
    // The composition root only wires: what a method does (refusals, answers, the contract's shapes) lives in app/.
    files: ['electron/core/createCore.ts'],
    rules: {
      'max-lines': ['error', { max: 150 }],
      'no-restricted-imports': restrict({
        names: coreNames,
        patterns: [coreFaces, layer(['**/shared/**'], 'createCore only wires the services: what a method of the contract does belongs in electron/core/app/')],
      }),
    },
  },
  {
    // One handler module per domain, each small enough to read at once.
    files: ['electron/core/app/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 150 }] },
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
        names: rendererNames,
        patterns: [rendererEngine],
      }),
    },
  },
  // Later blocks replace the rule's options for their files, so each repeats the renderer's own restrictions.
  rendererFolder('shared'),
  rendererFolder('bridge'),
  ...RENDERER_FEATURES.map((feature) => rendererFolder(feature)),
);
