// Tags typed as one comma-separated line, checked as the engine checks them (runs.annotate in electron/shared/api.ts).

/** The contract's bounds: at most 20 tags, each 1-40 characters of letters, digits and . _ - + */
export const MAX_TAGS = 20;
export const MAX_TAG_CHARS = 40;
const TAG = /^[\w.+-]+$/u;

export type ParsedTags = { ok: true; tags: string[] } | { ok: false; error: string };

/** `"amp, baseline,,amp"` → `["amp", "baseline"]`: empty pieces dropped, duplicates once, in the order typed. */
export function parseTags(text: string): ParsedTags {
  const tags = [
    ...new Set(
      text
        .split(',')
        .map((piece) => piece.trim())
        .filter((piece) => piece !== ''),
    ),
  ];
  const bad = tags.find((tag) => !TAG.test(tag));
  if (bad !== undefined) return { ok: false, error: `“${bad}”: a tag is letters, digits and . _ - + (commas separate tags)` };
  const long = tags.find((tag) => tag.length > MAX_TAG_CHARS);
  if (long !== undefined) return { ok: false, error: `“${long.slice(0, 12)}…”: at most ${MAX_TAG_CHARS} characters a tag` };
  if (tags.length > MAX_TAGS) return { ok: false, error: `at most ${MAX_TAGS} tags` };
  return { ok: true, tags };
}

export function tagsText(tags: readonly string[]): string {
  return tags.join(', ');
}
