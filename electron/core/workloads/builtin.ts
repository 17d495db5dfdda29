// Workloads every fresh database gets, so the main job works on any machine before the user adds their own.
import type { WorkloadInput } from '../../shared/api.js';

export const SYNTHETIC_WORKLOAD: WorkloadInput = {
  name: 'synthetic',
  description:
    'A simulated trainer (Node, no dependencies) whose throughput follows a documented formula of its flags; ' + 'see resources/workloads/synthetic/README.md.',
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
  tokensPerStep: '{batch} * 256',
  env: {},
  variables: [
    { name: 'batch', default: '8', description: 'samples per step' },
    { name: 'workers', default: '0', description: 'data-loader worker processes' },
    { name: 'amp', default: 'off', description: 'mixed precision: on or off' },
    { name: 'compile', default: 'off', description: 'simulated torch.compile: on or off' },
    { name: 'steps', default: '200', description: 'training steps' },
    { name: 'seed', default: '0', description: 'seed of the simulated noise', seed: true },
  ],
};

export const CHARLM_WORKLOAD: WorkloadInput = {
  name: 'charlm',
  description:
    'A small character-level transformer in PyTorch on a shipped corpus; logs through the structured channel. ' +
    'Needs a Python with torch (set the python variable); see resources/workloads/charlm/README.md.',
  cwd: '{resources}/workloads/charlm',
  command: [
    '{python}',
    'train.py',
    '--batch-size',
    '{batch}',
    '--seq-len',
    '{seq_len}',
    '--workers',
    '{workers}',
    '--pin-memory',
    '{pin_memory}',
    '--amp',
    '{amp}',
    '--compile',
    '{compile}',
    '--steps',
    '{steps}',
    '--device',
    '{device}',
    '--threads',
    '{threads}',
    '--seed',
    '{seed}',
  ],
  tokensPerStep: '{batch} * {seq_len}',
  env: {},
  variables: [
    { name: 'python', default: 'python3', description: 'a Python that can import torch' },
    { name: 'batch', default: '16', description: 'sequences per step' },
    { name: 'seq_len', default: '128', description: 'characters per sequence' },
    { name: 'workers', default: '0', description: 'DataLoader worker processes' },
    { name: 'pin_memory', default: 'off', description: 'pinned host memory: on or off' },
    { name: 'amp', default: 'off', description: 'mixed precision: bf16, fp16 (CUDA) or off' },
    { name: 'compile', default: 'off', description: 'torch.compile (PyTorch 2): on or off' },
    { name: 'steps', default: '200', description: 'training steps' },
    { name: 'device', default: 'auto', description: 'auto, cuda or cpu' },
    { name: 'threads', default: 'auto', description: 'torch CPU threads: auto or a number' },
    { name: 'seed', default: '0', description: 'random seed', seed: true },
  ],
};

export const BUILTIN_WORKLOADS: readonly WorkloadInput[] = [SYNTHETIC_WORKLOAD, CHARLM_WORKLOAD];
