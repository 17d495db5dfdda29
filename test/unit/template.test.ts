import { describe, expect, it } from 'vitest';
import { expandWorkload, shellQuote, TemplateError } from '../../electron/core/runner/template.js';

const workload = {
  name: 'train',
  cwd: '{resources}/work',
  command: ['python', 'train.py', '--batch_size', '{batch}', '--name={name}'],
  env: { TORCH_COMPILE: '{compile}' },
  variables: [
    { name: 'batch', default: '8', description: '' },
    { name: 'compile', default: '0', description: '' },
    { name: 'name', default: 'run a', description: '' },
  ],
};
const builtins = { resources: '/opt/tb/resources', node: '/usr/bin/node' };

describe('expandWorkload', () => {
  it('substitutes values and defaults, one argument per template element', () => {
    const expanded = expandWorkload(workload, { batch: '16' }, builtins);
    expect(expanded.command).toEqual(['python', 'train.py', '--batch_size', '16', '--name=run a']);
    expect(expanded.env).toEqual({ TORCH_COMPILE: '0' });
    expect(expanded.cwd).toBe('/opt/tb/resources/work');
    expect(expanded.config).toEqual({ batch: '16', compile: '0', name: 'run a' });
  });

  it('never re-splits a value with spaces or shell syntax', () => {
    const expanded = expandWorkload(workload, { batch: '8; rm -rf / $(x)' }, builtins);
    expect(expanded.command[3]).toBe('8; rm -rf / $(x)');
    expect(expanded.command).toHaveLength(5);
  });

  it('refuses a value for a variable the workload does not declare', () => {
    expect(() => expandWorkload(workload, { lr: '1e-3' }, builtins)).toThrow(/no variable lr \(it has: batch, compile, name\)/);
  });

  it('refuses a placeholder that is neither a variable nor a built-in', () => {
    const broken = { ...workload, command: ['python', '{script}'] };
    expect(() => expandWorkload(broken, {}, builtins)).toThrow(TemplateError);
  });
});

describe('shell mode', () => {
  const script = { ...workload, mode: 'shell' as const, command: ['python train.py --batch_size {batch} --name {name} | tee log.txt'] };

  it('runs the script with /bin/sh -c, each value quoted where it lands', () => {
    const expanded = expandWorkload(script, { name: "it's $(rm -rf ~)" }, builtins);
    expect(expanded.command).toEqual(['/bin/sh', '-c', `python train.py --batch_size 8 --name 'it'\\''s $(rm -rf ~)' | tee log.txt`]);
  });

  it('quotes only what needs it', () => {
    expect(shellQuote('16')).toBe('16');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote('')).toBe("''");
  });
});
