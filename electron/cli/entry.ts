// Process entry of the CLI: parses argv, runs, and leaves the exit status for Node to use.
import { installProcessGuards } from '../core/processGuards.js';
import { main } from './main.js';

// Before anything starts a run: a stray rejection is reported, never the end of a recording (the server runs here too).
installProcessGuards((message) => process.stderr.write(`tuning-bench: ${message}\n`));
process.exitCode = await main(process.argv);
