// How to make a kept knob permanent: the change at the script's line the knob recorded, in words and as a unified diff.
import path from 'node:path';
import type { TuneSuggestion } from '../../shared/api.js';
import type { KnobOutcome } from '../../shared/knobs.js';

/** Lines of context around each change, as `diff -u` and `git diff` give. */
const CONTEXT_LINES = 3;
/** How far above its recorded line a call may begin (Python may report a multi-line call at a later line of it). */
const MAX_CALL_LOOKBACK_LINES = 30;
const INDENT_STEP = '    ';

/** One block of a file replaced: `deleteCount` lines from `start` (0-based) by `insert`. */
export interface LineEdit {
  start: number;
  deleteCount: number;
  insert: string[];
}

/** Where each line's code ends (a comment's `#` or the line's end) and the bracket depth at each line's start. */
interface Scan {
  depthAtStart: number[];
  codeEnd: number[];
  continued: boolean[];
}

/** Brackets, strings and comments of Python source, enough to find where a call or a statement ends. */
function scanPython(lines: readonly string[]): Scan {
  const depthAtStart: number[] = [];
  const codeEnd: number[] = [];
  const continued: boolean[] = [];
  let depth = 0;
  let quote: string | null = null;
  for (const line of lines) {
    depthAtStart.push(quote === null ? depth : Math.max(depth, 1));
    let end = line.length;
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (quote !== null) {
        if (c === '\\') i++;
        else if (line.startsWith(quote, i)) {
          i += quote.length - 1;
          quote = null;
        }
        continue;
      }
      if (c === '#') {
        end = i;
        break;
      }
      if (c === '"' || c === "'") quote = line.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      if (quote !== null && quote.length === 3) i += 2;
      else if ('([{'.includes(c)) depth++;
      else if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
    }
    // A one-quote string does not run past its line; a triple-quoted one does.
    if (quote !== null && quote.length === 1) quote = null;
    codeEnd.push(end);
    continued.push(line.slice(0, end).trimEnd().endsWith('\\'));
  }
  return { depthAtStart, codeEnd, continued };
}

/** The position of the bracket that closes the one at (line, col), or null. */
function closingBracket(lines: readonly string[], line: number, col: number): { line: number; col: number } | null {
  let depth = 0;
  let quote: string | null = null;
  for (let l = line; l < lines.length; l++) {
    const text = lines[l]!;
    for (let i = l === line ? col : 0; i < text.length; i++) {
      const c = text[i]!;
      if (quote !== null) {
        if (c === '\\') i++;
        else if (text.startsWith(quote, i)) {
          i += quote.length - 1;
          quote = null;
        }
        continue;
      }
      if (c === '#') break;
      if (c === '"' || c === "'") {
        quote = text.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
        if (quote.length === 3) i += 2;
      } else if ('([{'.includes(c)) depth++;
      else if (')]}'.includes(c)) {
        depth--;
        if (depth === 0) return { line: l, col: i };
      }
    }
    if (quote !== null && quote.length === 1) quote = null;
  }
  return null;
}

function indentOf(line: string): string {
  return /^\s*/u.exec(line)![0];
}

/**
 * The keyword arguments `args` (name → source text) set in the call of `callee(` that spans line `line` (0-based):
 * an argument the call already has gets the new value, the others are added before the closing parenthesis (on its
 * own line, with the arguments' indentation, where the call closes on a line of its own). Null when no such call spans the line.
 */
export function editCallArguments(
  lines: readonly string[],
  line: number,
  callee: string,
  args: ReadonlyArray<[string, string]>,
): { edit: LineEdit; call: string } | null {
  const pattern = new RegExp(`\\b${callee}\\s*\\(`, 'u');
  for (let start = line; start >= Math.max(0, line - MAX_CALL_LOOKBACK_LINES); start--) {
    const match = pattern.exec(lines[start]!);
    if (!match) continue;
    const open = match.index + match[0].length - 1;
    const close = closingBracket(lines, start, open);
    if (close === null || close.line < line) continue;
    const block = lines.slice(start, close.line + 1);
    // The call's text, from its opening to its closing parenthesis, with the lines joined by \n.
    const offset = (l: number, col: number) => block.slice(0, l - start).reduce((sum, text) => sum + text.length + 1, 0) + col;
    let text = block.join('\n');
    let closeAt = offset(close.line, close.col);
    const missing: Array<[string, string]> = [];
    for (const [name, value] of args) {
      const existing = new RegExp(`\\b${name}\\s*=\\s*[^,)\\n]+`, 'u');
      const found = existing.exec(text.slice(offset(start, open), closeAt));
      if (found) {
        const at = offset(start, open) + found.index;
        const replacement = `${name}=${value}`;
        text = text.slice(0, at) + replacement + text.slice(at + found[0].length);
        closeAt += replacement.length - found[0].length;
      } else missing.push([name, value]);
    }
    let out = text.split('\n');
    if (missing.length > 0) {
      const added = missing.map(([name, value]) => `${name}=${value}`);
      const closeLine = close.line - start;
      const closeCol = closeAt - offset(close.line, 0);
      const before = out[closeLine]!.slice(0, closeCol);
      if (closeLine > 0 && before.trim() === '') {
        // `)` alone on its line: each argument on a line of its own, after a comma on the last argument's line.
        let last = closeLine - 1;
        while (last > 0 && out[last]!.trim() === '') last--;
        const scan = scanPython(out);
        const code = out[last]!.slice(0, scan.codeEnd[last]).trimEnd();
        if (!code.endsWith(',') && !code.endsWith('(')) out[last] = code + ',' + out[last]!.slice(code.length);
        const indent = code.endsWith('(') ? indentOf(out[last]!) + INDENT_STEP : indentOf(out[last]!);
        out = [...out.slice(0, closeLine), ...added.map((a) => `${indent}${a},`), ...out.slice(closeLine)];
      } else {
        const trimmed = before.trimEnd();
        const joiner = trimmed.endsWith('(') ? '' : trimmed.endsWith(',') ? ' ' : ', ';
        out[closeLine] = trimmed + joiner + added.join(', ') + out[closeLine]!.slice(closeCol);
      }
    }
    return { edit: { start, deleteCount: block.length, insert: out }, call: callOneLine(out.join('\n'), callee) };
  }
  return null;
}

/** `DataLoader(..., num_workers=4)`: the call in one line, for the text of a suggestion. */
function callOneLine(text: string, callee: string): string {
  const lines = text.split('\n');
  const match = new RegExp(`\\b${callee}\\s*\\(`, 'u').exec(lines[0]!)!;
  const close = closingBracket(lines, 0, match.index + match[0].length - 1)!;
  const call = [...lines.slice(0, close.line), lines[close.line]!.slice(0, close.col + 1)].join('\n').slice(match.index);
  const scan = scanPython(call.split('\n'));
  // Comments inside the call dropped, its lines joined.
  const code = call
    .split('\n')
    .map((line, i) => line.slice(0, scan.codeEnd[i]))
    .join(' ');
  return code
    .replace(/\s+/gu, ' ')
    .replace(/\(\s+/gu, '(')
    .replace(/,\s*\)/gu, ')')
    .trim();
}

/** The statement that holds line `line` (0-based), as a range of lines: brackets and `\` continuations followed both ways. */
export function statementLines(lines: readonly string[], line: number): { first: number; last: number } {
  const scan = scanPython(lines);
  let first = line;
  while (first > 0 && (scan.depthAtStart[first]! > 0 || scan.continued[first - 1]!)) first--;
  let last = line;
  while (last + 1 < lines.length && (scan.depthAtStart[last + 1]! > 0 || scan.continued[last]!)) last++;
  return { first, last };
}

/** The lines of a statement under `with HEADER:`; null where it cannot be wrapped (a compound statement's header, or a `def`/`class`). */
export function wrapStatement(lines: readonly string[], line: number, header: string): LineEdit | null {
  const { first, last } = statementLines(lines, line);
  const scan = scanPython(lines);
  const head = lines[first]!.trim();
  const tail = lines[last]!.slice(0, scan.codeEnd[last]).trimEnd();
  if (tail.endsWith(':') || /^(def|class|if|elif|else|for|while|with|try|except|finally|async|return|yield|lambda)\b/u.test(head)) {
    if (!/^return\b/u.test(head) || tail.endsWith(':')) return null;
  }
  const indent = indentOf(lines[first]!);
  const body = lines.slice(first, last + 1).map((text) => (text.trim() === '' ? text : INDENT_STEP + text));
  return { start: first, deleteCount: last - first + 1, insert: [`${indent}with ${header}:`, ...body] };
}

/** Lines added after line `line` (0-based) at its indentation. */
function insertAfter(lines: readonly string[], line: number, added: readonly string[]): LineEdit {
  const indent = indentOf(lines[line]!);
  return { start: line + 1, deleteCount: 0, insert: added.map((text) => indent + text) };
}

/** An edit without the lines it leaves as they were at its start and end, so a diff shows only what changes. */
function trimmed(lines: readonly string[], edit: LineEdit): LineEdit {
  let { start, deleteCount } = edit;
  let insert = [...edit.insert];
  while (deleteCount > 0 && insert.length > 0 && lines[start] === insert[0]) {
    start++;
    deleteCount--;
    insert = insert.slice(1);
  }
  while (deleteCount > 0 && insert.length > 0 && lines[start + deleteCount - 1] === insert.at(-1)) {
    deleteCount--;
    insert = insert.slice(0, -1);
  }
  return { start, deleteCount, insert };
}

/**
 * A unified diff of `edits` to `lines` (as `git apply` and `patch -p1` take): hunks with CONTEXT_LINES of context,
 * edits whose contexts touch in one hunk. `edits` must not overlap.
 */
export function unifiedDiff(relativePath: string, lines: readonly string[], edits: readonly LineEdit[], noNewlineAtEnd = false): string {
  const sorted = edits.map((edit) => trimmed(lines, edit)).sort((a, b) => a.start - b.start);
  const groups: LineEdit[][] = [];
  for (const edit of sorted) {
    const group = groups.at(-1);
    const previous = group?.at(-1);
    if (group && previous && edit.start - (previous.start + previous.deleteCount) <= 2 * CONTEXT_LINES) group.push(edit);
    else groups.push([edit]);
  }
  const out = [`--- a/${relativePath}`, `+++ b/${relativePath}`];
  let shift = 0;
  for (const group of groups) {
    const first = group[0]!;
    const lastEdit = group.at(-1)!;
    const from = Math.max(0, first.start - CONTEXT_LINES);
    const to = Math.min(lines.length, lastEdit.start + lastEdit.deleteCount + CONTEXT_LINES);
    const body: string[] = [];
    let at = from;
    let added = 0;
    for (const edit of group) {
      for (; at < edit.start; at++) body.push(` ${lines[at]}`);
      for (let i = 0; i < edit.deleteCount; i++) body.push(`-${lines[edit.start + i]}`);
      for (const text of edit.insert) body.push(`+${text}`);
      at = edit.start + edit.deleteCount;
      added += edit.insert.length - edit.deleteCount;
    }
    for (; at < to; at++) body.push(` ${lines[at]}`);
    const oldCount = to - from;
    const newCount = oldCount + added;
    // A hunk that adds to an empty range starts at the line before it (0 at the top), as diff writes it.
    const oldStart = oldCount === 0 ? from : from + 1;
    const newStart = newCount === 0 ? from + shift : from + shift + 1;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...body);
    if (noNewlineAtEnd && to === lines.length) out.push('\\ No newline at end of file');
    shift += added;
  }
  return `${out.join('\n')}\n`;
}

/** A kept knob, with the places its runs recorded it applied at. */
export interface KeptKnob {
  name: string;
  value: string;
  outcomes: readonly KnobOutcome[];
}

interface Change {
  knobs: string[];
  file: string | null;
  line: number | null;
  /** What to do, after `file:line: `. */
  text: string;
  edit: LineEdit | null;
}

const SWITCH_LINES: Record<string, (value: string) => string[]> = {
  threads: (value) => [`torch.set_num_threads(${value})`],
  tf32: () => ['torch.backends.cuda.matmul.allow_tf32 = True', 'torch.backends.cudnn.allow_tf32 = True'],
  cudnnBenchmark: () => ['torch.backends.cudnn.benchmark = True'],
  matmulPrecision: (value) => [`torch.set_float32_matmul_precision("${value}")`],
};

const LOADER_ARGUMENTS: Record<string, (value: string) => [string, string]> = {
  workers: (value) => ['num_workers', value],
  pinMemory: () => ['pin_memory', 'True'],
  persistentWorkers: () => ['persistent_workers', 'True'],
  prefetch: (value) => ['prefetch_factor', value],
};

/**
 * Where a Hugging Face Trainer made the call (its loader, its model's forward, its import of torch), the knob is kept
 * by one of its TrainingArguments, not by an edit at the script's line (which is the Trainer's `train()`).
 */
const TRAINING_ARGUMENTS: Record<string, (value: string) => [string, string]> = {
  workers: (value) => ['dataloader_num_workers', value],
  persistentWorkers: () => ['dataloader_persistent_workers', 'True'],
  pinMemory: () => ['dataloader_pin_memory', 'True'],
  prefetch: (value) => ['dataloader_prefetch_factor', value],
  autocast: (value) => [value === 'bf16' ? 'bf16' : 'fp16', 'True'],
  compile: () => ['torch_compile', 'True'],
  tf32: () => ['tf32', 'True'],
};
const TRAINER_PACKAGE = 'transformers';

/** Applied places, each once (a loader made at one line in many epochs or workers is one place). */
function appliedSites(knob: KeptKnob): Array<{ file: string | null; line: number | null; what: string | null }> {
  const seen = new Set<string>();
  const sites = [];
  for (const outcome of knob.outcomes) {
    if (outcome.status !== 'applied') continue;
    const key = `${outcome.file}:${outcome.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    sites.push({ file: outcome.file, line: outcome.line, what: outcome.what });
  }
  return sites;
}

/**
 * The changes that make the kept knobs permanent, each with its unified diff against the file as it is now, and all
 * of them as one patch with the directory it applies in. `readFile` returns a file's text or null (not readable).
 */
export function suggestChanges(
  keptKnobs: readonly KeptKnob[],
  cwd: string,
  readFile: (file: string) => string | null,
): { suggestions: TuneSuggestion[]; patch: string | null; patchDir: string | null } {
  let kept = keptKnobs;
  const files = new Map<string, { lines: string[]; noNewlineAtEnd: boolean } | null>();
  const fileLines = (file: string) => {
    if (!files.has(file)) {
      const text = readFile(file);
      files.set(file, text === null ? null : { lines: text.replace(/\n$/u, '').split('\n'), noNewlineAtEnd: text.length > 0 && !text.endsWith('\n') });
    }
    return files.get(file)!;
  };
  const changes: Change[] = [];
  // What a Trainer did for the script is kept in its TrainingArguments; the rest at the script's own lines.
  const byTrainer = (o: KnobOutcome) => o.status === 'applied' && o.via === TRAINER_PACKAGE && o.file !== null;
  const trainerKnobs = kept
    .filter((k) => k.name in TRAINING_ARGUMENTS)
    .map((k) => ({ ...k, outcomes: k.outcomes.filter(byTrainer) }))
    .filter((k) => k.outcomes.length > 0);
  if (trainerKnobs.length > 0) changes.push(trainingArgumentsChange(trainerKnobs, fileLines));
  // A knob the Trainer applied everywhere is kept by those arguments alone; one applied at the script's lines too, there as well.
  kept = kept.flatMap((k) => {
    if (!(k.name in TRAINING_ARGUMENTS) || !k.outcomes.some(byTrainer)) return [k];
    const own = { ...k, outcomes: k.outcomes.filter((o) => !byTrainer(o)) };
    return appliedSites(own).length > 0 ? [own] : [];
  });
  const byName = new Map(kept.map((k) => [k.name, k]));

  // Loader knobs: one change per DataLoader call, with every kept loader argument that applied there.
  const loaderKnobs = kept.filter((k) => k.name in LOADER_ARGUMENTS);
  const loaderSites = new Map<string, { file: string | null; line: number | null; knobs: KeptKnob[] }>();
  for (const knob of loaderKnobs) {
    for (const site of appliedSites(knob)) {
      const key = `${site.file}:${site.line}`;
      const entry = loaderSites.get(key) ?? { file: site.file, line: site.line, knobs: [] };
      entry.knobs.push(knob);
      loaderSites.set(key, entry);
    }
  }
  for (const site of loaderSites.values()) {
    const args = site.knobs.map((k) => LOADER_ARGUMENTS[k.name]!(k.value));
    const named = site.knobs.map((k) => `${k.name}=${k.value}`);
    const wanted = args.map(([n, v]) => `${n}=${v}`).join(', ');
    const lines = site.file === null ? null : fileLines(site.file);
    const found = lines && site.line !== null ? editCallArguments(lines.lines, site.line - 1, 'DataLoader', args) : null;
    changes.push(
      found
        ? { knobs: named, file: site.file, line: site.line, text: found.call.replace(/\(.*\)$/su, `(..., ${wanted})`), edit: found.edit }
        : {
            knobs: named,
            file: site.file,
            line: site.line,
            text: `DataLoader(..., ${wanted}) (${lines === null ? 'the file could not be read' : 'no DataLoader( call found at that line: the file may have changed since the run'}; add the arguments by hand)`,
            edit: null,
          },
    );
  }

  const autocast = byName.get('autocast');
  for (const site of autocast ? appliedSites(autocast) : []) {
    if (site.what?.startsWith('loss.backward()')) {
      changes.push({
        knobs: ['autocast=fp16'],
        file: site.file,
        line: site.line,
        // The scaler the run made: torch.amp.GradScaler("cuda") on torch 2.3 on, torch.cuda.amp.GradScaler() before.
        text: `scale the loss: scaler = ${/\(scaler = (.+)\)$/u.exec(site.what)?.[1] ?? 'torch.cuda.amp.GradScaler()'}; scaler.scale(loss).backward(); scaler.step(optimizer); scaler.update()`,
        edit: null,
      });
      continue;
    }
    const header =
      /torch\.autocast\([^)]*\)/u.exec(site.what ?? '')?.[0].replace(/'/gu, '"') ??
      `torch.autocast("cuda", dtype=torch.${autocast!.value === 'bf16' ? 'bfloat16' : 'float16'})`;
    const lines = site.file === null ? null : fileLines(site.file);
    const edit = lines && site.line !== null ? wrapStatement(lines.lines, site.line - 1, header) : null;
    const text = `with ${header}: around the forward`;
    changes.push({
      knobs: [`autocast=${autocast!.value}`],
      file: site.file,
      line: site.line,
      text: edit
        ? `${text} (the knob handed its floating outputs back as float32: add .float() to the output if what follows needs float32)`
        : `${text} (${lines === null ? 'the file could not be read' : 'that line is part of a compound statement: wrap the model call by hand'})`,
      edit,
    });
  }

  for (const name of Object.keys(SWITCH_LINES)) {
    const knob = byName.get(name);
    if (!knob) continue;
    const added = SWITCH_LINES[name]!(knob.value);
    const site = appliedSites(knob)[0] ?? { file: null, line: null };
    const lines = site.file === null ? null : fileLines(site.file);
    let edit: LineEdit | null = null;
    if (lines && site.line !== null && site.line <= lines.lines.length) {
      const importLine = lines.lines[site.line - 1]!;
      const bindsTorch = /^\s*import\s+torch\s*(#.*)?$/u.test(importLine);
      edit = insertAfter(lines.lines, site.line - 1, bindsTorch ? added : ['import torch', ...added]);
    }
    changes.push({ knobs: [`${name}=${knob.value}`], file: site.file, line: site.line, text: `after the import of torch: ${added.join('; ')}`, edit });
  }

  for (const name of ['compile', 'channelsLast']) {
    const knob = byName.get(name);
    if (!knob) continue;
    const site = appliedSites(knob)[0] ?? { file: null, line: null };
    const text =
      name === 'compile'
        ? 'model = torch.compile(model) once, before the training loop (the model is called here)'
        : 'model = model.to(memory_format=torch.channels_last) once, and x.to(memory_format=torch.channels_last) for each 4-D input (called here)';
    changes.push({
      knobs: [`${name}=${knob.value}`],
      file: site.file,
      line: site.line,
      text: `${text}; no diff: the line that makes the model is not recorded`,
      edit: null,
    });
  }

  const patchDir = patchDirectory(
    cwd,
    changes.flatMap((change) => (change.edit && change.file !== null ? [change.file] : [])),
  );
  const relative = (file: string) => path.relative(patchDir, file);
  const suggestions: TuneSuggestion[] = changes.map((change) => {
    const lines = change.file === null ? null : fileLines(change.file);
    const site = change.file === null ? '' : `${path.basename(change.file)}${change.line === null ? '' : `:${change.line}`}: `;
    return {
      knobs: change.knobs,
      file: change.file,
      line: change.line,
      text: `${site}${change.text}`,
      diff: change.edit && lines && change.file ? unifiedDiff(relative(change.file), lines.lines, [change.edit], lines.noNewlineAtEnd) : null,
    };
  });
  // All the edits as one patch, file by file; an edit that overlaps another is left to its own diff.
  const patches: string[] = [];
  const byFile = new Map<string, LineEdit[]>();
  for (const change of changes) {
    if (!change.edit || change.file === null) continue;
    const list = byFile.get(change.file) ?? [];
    const overlaps = list.some(
      (e) => change.edit!.start < e.start + Math.max(1, e.deleteCount) && e.start < change.edit!.start + Math.max(1, change.edit!.deleteCount),
    );
    if (!overlaps) list.push(change.edit);
    byFile.set(change.file, list);
  }
  for (const [file, edits] of byFile) {
    const lines = fileLines(file)!;
    patches.push(unifiedDiff(relative(file), lines.lines, edits, lines.noNewlineAtEnd));
  }
  return { suggestions, patch: patches.length === 0 ? null : patches.join(''), patchDir: patches.length === 0 ? null : patchDir };
}

/**
 * The TrainingArguments that keep what a Hugging Face Trainer's knobs did: set in the script's one
 * `TrainingArguments(` call where it has one; as command-line flags where the script reads its arguments with
 * HfArgumentParser (the examples' run_*.py); in words otherwise.
 */
function trainingArgumentsChange(knobs: readonly KeptKnob[], fileLines: (file: string) => { lines: string[]; noNewlineAtEnd: boolean } | null): Change {
  const args = knobs.map((k) => TRAINING_ARGUMENTS[k.name]!(k.value));
  const assigned = args.map(([n, v]) => `${n}=${v}`).join(', ');
  const named = knobs.map((k) => `${k.name}=${k.value}`);
  const site = knobs[0]!.outcomes[0]!;
  const file = site.file!;
  const lines = fileLines(file);
  const why = `the Trainer called at ${path.basename(file)}${site.line === null ? '' : `:${site.line}`} makes the DataLoader and calls the model`;
  const calls = (lines?.lines ?? []).flatMap((text, i) =>
    /\bTrainingArguments\s*\(/u.test(text.slice(0, text.indexOf('#') < 0 ? undefined : text.indexOf('#'))) ? [i] : [],
  );
  if (lines && calls.length === 1) {
    const found = editCallArguments(lines.lines, calls[0]!, 'TrainingArguments', args);
    if (found)
      return {
        knobs: named,
        file,
        line: calls[0]! + 1,
        text: `${found.call.replace(/\(.*\)$/su, `(..., ${assigned})`)} (${why})`,
        edit: found.edit,
      };
  }
  if (lines && calls.length === 0 && lines.lines.some((text) => /\bHfArgumentParser\b/u.test(text))) {
    const flags = args.map(([n, v]) => `--${n} ${v}`).join(' ');
    return { knobs: named, file, line: site.line, text: `run it with ${flags} (its TrainingArguments come from the command line; ${why})`, edit: null };
  }
  const where =
    lines === null
      ? 'the file could not be read'
      : calls.length === 0
        ? 'no TrainingArguments( call in this file'
        : `${calls.length} TrainingArguments( calls in this file`;
  return {
    knobs: named,
    file,
    line: site.line,
    text: `TrainingArguments(..., ${assigned}) (${why}; ${where}: set them where its arguments are made)`,
    edit: null,
  };
}

/**
 * Where the patch applies (`patch -p1` or `git apply` there): the command's directory when every file it changes is
 * in it; otherwise (a script typed as `python /elsewhere/train.py`) the deepest directory that holds them all.
 */
function patchDirectory(cwd: string, files: readonly string[]): string {
  const inside = (dir: string, file: string) => {
    const rel = path.relative(dir, file);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  };
  if (files.every((file) => inside(cwd, file))) return cwd;
  let dir = path.dirname(files[0]!);
  while (!files.every((file) => inside(dir, file)) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}
