// Types of scripts/electronRuntime.mjs for the tests that import it.
export function electronBinaryInstalled(root: string): boolean;
export function missingRuntimeSentence(why: string): string;
export function downloadFailureReason(stderr: string): string;
export function installElectronRuntime(root: string, env?: NodeJS.ProcessEnv): { installed: boolean; message: string | null };
