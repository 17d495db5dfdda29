// The scanner ships no types; this is the part of its programmatic API the security test uses.
declare module '@doyensec/electronegativity' {
  interface RunOptions {
    input: string;
    electronVersionOverride?: string;
    severitySet?: string;
    confidenceSet?: string;
  }
  export default function run(options: RunOptions): Promise<unknown>;
}
