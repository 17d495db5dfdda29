// Types of scripts/buildIfChanged.mjs for the tests that import it (the script itself stays plain Node, no build step).
export interface BuildPart {
  name: string;
  script: string;
  inputs: string[];
  output: string;
}
export interface InputFile {
  path: string;
  mtimeMs: number;
}
export const BUILD_PARTS: BuildPart[];
export function listInputs(root: string, inputs: readonly string[]): InputFile[];
export function staleReason(root: string, part: BuildPart): string | null;
export function writeStamp(root: string, part: BuildPart, startedAtMs: number, files: readonly InputFile[]): void;
