// A run started from a typed command keeps the command as typed, its {variables} and their values, beside the command that ran.
import type { Migration } from './index.js';

export const typedCommand: Migration = {
  version: 15,
  name: 'typed-command',
  sql: `
    -- JSON {template, mode, cwd, values}: what "Edit and run again" fills in. NULL for a workload's run, and for runs stored
    -- before this was kept (they are edited from the command that ran, as before).
    ALTER TABLE runs ADD COLUMN typed_command_json TEXT;
  `,
};
