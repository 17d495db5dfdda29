// Types of scripts/prepareElectronStart.mjs for the tests that import it.
export function prepareNativeModulesForElectron(root: string): { ok: boolean; lines: string[] };
