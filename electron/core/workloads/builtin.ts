// Workloads every fresh database gets, so the main job works on any machine before the user adds their own.
import type { WorkloadInput } from '../../shared/api.js';

export const SYNTHETIC_WORKLOAD: WorkloadInput = {
  name: 'synthetic',
  description:
    'A simulated trainer (Node, no dependencies) whose throughput follows a documented formula of its flags; ' +
    'see resources/workloads/synthetic/README.md.',
  cwd: '{resources}/workloads/synthetic',
  command: [
    '{node}',
    'train.js',
    '--batch-size',
    '{batch}',
    '--workers',
    '{workers}',
    '--amp',
    '{amp}',
    '--compile',
    '{compile}',
    '--steps',
    '{steps}',
    '--seed',
    '{seed}',
  ],
  env: {},
  variables: [
    { name: 'batch', default: '8', description: 'samples per step' },
    { name: 'workers', default: '0', description: 'data-loader worker processes' },
    { name: 'amp', default: 'off', description: 'mixed precision: on or off' },
    { name: 'compile', default: 'off', description: 'simulated torch.compile: on or off' },
    { name: 'steps', default: '200', description: 'training steps' },
    { name: 'seed', default: '0', description: 'seed of the simulated noise' },
  ],
};

export const BUILTIN_WORKLOADS: readonly WorkloadInput[] = [SYNTHETIC_WORKLOAD];
