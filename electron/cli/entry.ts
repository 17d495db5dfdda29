// Process entry of the CLI: parses argv, runs, and leaves the exit status for Node to use.
import { main } from './main.js';

process.exitCode = await main(process.argv);
