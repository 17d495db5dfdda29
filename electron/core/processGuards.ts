// The last error boundary of a process (CLI, server, desktop main): a promise nobody awaited is recorded, and no run dies of it; SIGUSR1 opens no debugger.

/** Reasons already reported, so one fault repeating every tick does not flood the log. */
const MAX_REPORTED = 50;

let installed = false;

/**
 * Installs an `unhandledRejection` handler that writes the fault to `log` and keeps the process (and the
 * training runs it records) going. Node's default would end the process, and with it every run's record.
 */
export function installProcessGuards(log: (message: string) => void): void {
  if (installed) return;
  installed = true;
  // Node's default for SIGUSR1 opens its inspector on 127.0.0.1:9229, where any local user could run code in
  // the engine (and stall the runs it records); a listener of our own replaces that default.
  process.on('SIGUSR1', () => {
    try {
      log('SIGUSR1 received and ignored (Node would open its debugger on it; this process does not)');
    } catch {
      // A closed terminal: nothing to tell.
    }
  });
  let reported = 0;
  process.on('unhandledRejection', (reason) => {
    if (reported >= MAX_REPORTED) return;
    reported += 1;
    const detail = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
    try {
      log(`an internal operation failed and was set aside (the runs go on); please report it: ${detail}`);
    } catch {
      // Logging itself failed (a closed terminal): there is nowhere left to say it.
    }
  });
}
