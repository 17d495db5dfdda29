// Types of scripts/nativeBuildCache.mjs for the tests that import it.
export const NATIVE_MODULES: string[];
export function nodeBuildKey(): string;
export function electronBuildKey(root: string): { key: string; version: string } | null;
export function builtFor(root: string, name: string): string | null;
export function stashBuild(root: string, name: string, key: string): boolean;
export function restoreBuild(root: string, name: string, key: string): boolean;
