// Workloads: named command templates with their variables.
import type { Workload, WorkloadInput } from '../../shared/api.js';
import { workloadInput } from '../../shared/api.js';
import type { Db } from './open.js';
import { systemClock, type Clock } from '../clock.js';

interface WorkloadRow {
  id: number;
  name: string;
  description: string;
  cwd: string;
  mode: 'argv' | 'shell';
  tokens_per_step: string;
  step_choices_json: string | null;
  metric_regex: string;
  command_json: string;
  env_json: string;
  variables_json: string;
  builtin: number;
  created_at: string;
}

export class WorkloadNameTakenError extends Error {
  constructor(name: string) {
    super(`a workload named "${name}" exists already; choose another name`);
    this.name = 'WorkloadNameTakenError';
  }
}

export class WorkloadNotFoundError extends Error {
  constructor(id: number) {
    super(`no workload ${id}`);
    this.name = 'WorkloadNotFoundError';
  }
}

export class BuiltinWorkloadError extends Error {
  constructor(name: string, verb: 'changed' | 'removed') {
    super(`"${name}" is built into Tuning Bench and cannot be ${verb}; register a copy under another name instead`);
    this.name = 'BuiltinWorkloadError';
  }
}

export class WorkloadStore {
  private readonly selectAll;
  private readonly selectById;
  private readonly selectByName;
  private readonly insert;
  private readonly updateBuiltin;
  private readonly updateOwn;
  private readonly deleteOwn;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock = systemClock,
  ) {
    this.selectAll = db.prepare<[], WorkloadRow>('SELECT * FROM workloads ORDER BY builtin DESC, name');
    this.selectById = db.prepare<[number], WorkloadRow>('SELECT * FROM workloads WHERE id = ?');
    this.selectByName = db.prepare<[string], WorkloadRow>('SELECT * FROM workloads WHERE name = ?');
    this.insert = db.prepare(
      `INSERT INTO workloads (name, description, cwd, mode, tokens_per_step, metric_regex, command_json, env_json, variables_json, step_choices_json, builtin, created_at)
       VALUES (@name, @description, @cwd, @mode, @tokens_per_step, @metric_regex, @command_json, @env_json, @variables_json, @step_choices_json, @builtin, @created_at)`,
    );
    this.updateBuiltin = db.prepare(
      `UPDATE workloads SET description = @description, cwd = @cwd, mode = @mode, tokens_per_step = @tokens_per_step,
         metric_regex = @metric_regex, command_json = @command_json,
         env_json = @env_json, variables_json = @variables_json, step_choices_json = @step_choices_json WHERE name = @name AND builtin = 1`,
    );
    this.updateOwn = db.prepare(
      `UPDATE workloads SET name = @name, description = @description, cwd = @cwd, mode = @mode, tokens_per_step = @tokens_per_step,
         metric_regex = @metric_regex, command_json = @command_json,
         env_json = @env_json, variables_json = @variables_json, step_choices_json = @step_choices_json WHERE id = @id AND builtin = 0`,
    );
    // Runs and sweeps keep their rows: their workload_id becomes NULL (ON DELETE SET NULL) and they keep its name.
    this.deleteOwn = db.prepare<[number]>('DELETE FROM workloads WHERE id = ? AND builtin = 0');
  }

  list(): Workload[] {
    return this.selectAll.all().map(toWorkload);
  }

  get(id: number): Workload | undefined {
    const row = this.selectById.get(id);
    return row && toWorkload(row);
  }

  getByName(name: string): Workload | undefined {
    const row = this.selectByName.get(name);
    return row && toWorkload(row);
  }

  create(input: WorkloadInput, options: { builtin?: boolean } = {}): Workload {
    const parsed = workloadInput.parse(input);
    if (this.selectByName.get(parsed.name)) throw new WorkloadNameTakenError(parsed.name);
    const result = this.insert.run({
      ...columns(parsed),
      builtin: options.builtin ? 1 : 0,
      created_at: this.clock.now().toISOString(),
    });
    return this.get(Number(result.lastInsertRowid))!;
  }

  /** Changes a workload the user registered; built-in ones are the app's and are refused. */
  update(id: number, input: WorkloadInput): Workload {
    const parsed = workloadInput.parse(input);
    const current = this.selectById.get(id);
    if (!current) throw new WorkloadNotFoundError(id);
    if (current.builtin === 1) throw new BuiltinWorkloadError(current.name, 'changed');
    const other = this.selectByName.get(parsed.name);
    if (other && other.id !== id) throw new WorkloadNameTakenError(parsed.name);
    this.updateOwn.run({ ...columns(parsed), id });
    return this.get(id)!;
  }

  /** Removes a workload the user registered; its runs stay. */
  remove(id: number): void {
    const current = this.selectById.get(id);
    if (!current) throw new WorkloadNotFoundError(id);
    if (current.builtin === 1) throw new BuiltinWorkloadError(current.name, 'removed');
    this.deleteOwn.run(id);
  }

  /** Creates a built-in workload, or brings an existing one up to this version's definition. */
  upsertBuiltin(input: WorkloadInput): Workload {
    const parsed = workloadInput.parse(input);
    const existing = this.selectByName.get(parsed.name);
    if (!existing) return this.create(parsed, { builtin: true });
    if (existing.builtin === 1) this.updateBuiltin.run({ ...columns(parsed) });
    // A user's own workload that took the name first is left alone.
    return this.getByName(parsed.name)!;
  }
}

function columns(input: ReturnType<typeof workloadInput.parse>) {
  return {
    name: input.name,
    description: input.description,
    cwd: input.cwd,
    mode: input.mode,
    tokens_per_step: input.tokensPerStep,
    metric_regex: input.metricRegex,
    command_json: JSON.stringify(input.command),
    env_json: JSON.stringify(input.env),
    variables_json: JSON.stringify(input.variables),
    step_choices_json: input.steps === null ? null : JSON.stringify(input.steps),
  };
}

function toWorkload(row: WorkloadRow): Workload {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    cwd: row.cwd,
    mode: row.mode,
    tokensPerStep: row.tokens_per_step,
    metricRegex: row.metric_regex,
    command: JSON.parse(row.command_json) as string[],
    env: JSON.parse(row.env_json) as Record<string, string>,
    variables: JSON.parse(row.variables_json) as Workload['variables'],
    steps: row.step_choices_json ? (JSON.parse(row.step_choices_json) as Workload['steps']) : null,
    builtin: row.builtin === 1,
    createdAt: row.created_at,
  };
}
