// The contract: every method has a handler, inputs are bounded and validated, errors cross as data.
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, dispatch, events, methodNames, methods, type ApiResult, type MethodName } from '../../electron/shared/api.js';
import { tempCore } from '../helpers/tempCore.js';

const harness = tempCore();
afterAll(() => harness.cleanup());

describe('the contract', () => {
  it('has a handler for every method, and no handler outside it', () => {
    expect(Object.keys(harness.core.handlers).sort()).toEqual([...methodNames].sort());
  });

  it('names methods domain.verb and events domain.onEvent', () => {
    for (const name of methodNames) expect(name).toMatch(/^[a-z]+\.[a-z][A-Za-z]+$/);
    for (const name of Object.keys(events)) expect(name).toMatch(/^[a-z]+\.on[A-Z][A-Za-z]+$/);
  });

  it('rejects bad input with a message naming the field, without calling the handler', async () => {
    const result = await dispatch(harness.core.handlers, 'runs.resize', { id: 1, cols: 5000, rows: 10 });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect((result as { error: { message: string } }).error.message).toMatch(/cols/);
  });

  it('bounds a terminal write at 64 KiB', () => {
    expect(methods['runs.write'].input.safeParse({ id: 1, data: 'x'.repeat(64 * 1024 + 1) }).success).toBe(false);
    expect(methods['runs.write'].input.safeParse({ id: 1, data: 'x'.repeat(64 * 1024) }).success).toBe(true);
  });

  it('answers unknown methods and missing runs with codes, never a thrown object', async () => {
    expect(await dispatch(harness.core.handlers, 'runs.delete', {})).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(await dispatch(harness.core.handlers, 'runs.get', { id: 424242 })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('round-trips through a client: outputs match their schemas', async () => {
    const client = createClient((method: MethodName, input: unknown) => dispatch(harness.core.handlers, method, input) as Promise<ApiResult<unknown>>);
    const workloads = await client['workloads.list']({});
    expect(methods['workloads.list'].output.parse(workloads).map((w) => w.name)).toContain('synthetic');
    const created = await client['workloads.create']({
      name: 'echo test',
      cwd: harness.dir,
      command: ['echo', '{word}'],
      env: { GREETING: '{word}' },
      variables: [{ name: 'word', default: 'hello' }],
    });
    expect(methods['workloads.create'].output.parse(created).builtin).toBe(false);
    const preview = await client['workloads.preview']({ workloadId: created.id, values: { word: 'two words' } });
    expect(preview).toEqual({ command: ['echo', 'two words'], cwd: harness.dir, env: { GREETING: 'two words' } });
    await expect(client['workloads.create']({ name: 'echo test', cwd: '/', command: ['x'], env: {}, variables: [] })).rejects.toThrow(/exists already/);
    const info = await client['app.info']({});
    expect(methods['app.info'].output.parse(info).dbPath).toBe(harness.dbPath);
  });
});
