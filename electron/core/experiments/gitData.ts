// What git does not track (datasets, caches, outputs): listed for a before/after to offer, and the links asked for
// made into paths that are safe to link into a revision's worktree (untracked or ignored only, never a tracked file).
import fs from 'node:fs';
import path from 'node:path';
import type { GitUntrackedPath } from '../../shared/api.js';
import { gitText } from './git.js';

/** An untracked or ignored path as `git status` lists it (whole folders collapsed: `out/`). */
export interface StatusEntry {
  /** Relative to the repository's top, `/` at the end for a folder. */
  path: string;
  ignored: boolean;
}

/** Paths listed inside one offer: enough to see what it holds; the count says the rest. */
const LISTED_INSIDE = 50;

/**
 * Caches, environments and tool folders: never data a script reads, so never offered ticked. From the .gitignore
 * templates of Python, Jupyter and the common ML trackers (github/gitignore Python.gitignore).
 */
const NOT_DATA =
  /^(__pycache__|\.ipynb_checkpoints|\.pytest_cache|\.mypy_cache|\.ruff_cache|\.tox|\.nox|\.venv|venv|env|\.env|node_modules|\.idea|\.vscode|\.DS_Store|wandb|mlruns|lightning_logs|\.cache|build|dist|site|htmlcov|.*\.egg-info)\/?$/iu;
/** Folder names that hold datasets in ML repositories (nanoGPT's data/, torchvision's datasets/, fairseq's data-bin/...). */
const DATA_FOLDER = /^(data|datasets?|data-bin|inputs?|corpus|corpora|shards?|tokens|tokenized|raw|processed)$/iu;
/** File kinds datasets come in (token shards, arrays, tables, records). */
const DATA_FILE = /\.(bin|npy|npz|pkl|pickle|parquet|arrow|feather|h5|hdf5|tfrecords?|csv|tsv|jsonl|txt|idx|mmap|lmdb|zarr|tar|zst)$/iu;

/** `git status --ignored` of the whole repository: every untracked and ignored path, folders collapsed. Reads only. */
export async function untrackedEntries(root: string, env: Record<string, string>): Promise<StatusEntry[]> {
  const text = await gitText(root, ['status', '--porcelain=v1', '-z', '--ignored=traditional', '--untracked-files=normal'], env);
  const fields = text.split('\0');
  const entries: StatusEntry[] = [];
  for (let i = 0; i < fields.length; i += 1) {
    const field = fields[i]!;
    if (field.length < 4) continue;
    const code = field.slice(0, 2);
    // A rename or copy carries its old path in the next field.
    if (code[0] === 'R' || code[0] === 'C') i += 1;
    if (code === '??' || code === '!!') entries.push({ path: field.slice(3), ignored: code === '!!' });
  }
  return entries.sort((a, b) => a.path.localeCompare(b.path));
}

const topOf = (entry: string) => entry.split('/')[0]!;
const bare = (entry: string) => entry.replace(/\/$/u, '');

/** Likely data: ignored, not a cache, and a data folder's name or data files. */
function looksLikeData(top: string, entries: readonly StatusEntry[]): boolean {
  if (NOT_DATA.test(top) || !entries.every((e) => e.ignored)) return false;
  if (DATA_FOLDER.test(bare(top))) return true;
  return entries.every((e) => !e.path.endsWith('/') && DATA_FILE.test(e.path) && !path.basename(e.path).startsWith('.'));
}

/** The offers a before/after shows, one per top folder (or top file), data ticked. */
export function untrackedOffers(entries: readonly StatusEntry[]): GitUntrackedPath[] {
  const byTop = new Map<string, StatusEntry[]>();
  for (const entry of entries) {
    const top = topOf(entry.path);
    byTop.set(top, [...(byTop.get(top) ?? []), entry]);
  }
  const offers: GitUntrackedPath[] = [];
  for (const [top, inTop] of byTop) {
    const whole = inTop.find((e) => bare(e.path) === top);
    if (whole) {
      const directory = whole.path.endsWith('/');
      offers.push({
        path: whole.path,
        kind: whole.ignored ? 'ignored' : 'untracked',
        directory,
        inside: [],
        insideCount: 0,
        suggested: looksLikeData(top, [whole]),
      });
    } else {
      // git lists paths below the top folder only when the top folder itself holds tracked files.
      offers.push({
        path: `${top}/`,
        kind: 'inside-tracked',
        directory: true,
        inside: inTop.slice(0, LISTED_INSIDE).map((e) => e.path),
        insideCount: inTop.length,
        suggested: looksLikeData(top, inTop),
      });
    }
  }
  return offers.sort((a, b) => a.path.localeCompare(b.path));
}

export class LinkError extends Error {
  override name = 'LinkError';
}

/**
 * The links asked for (`data`, `data/train.bin`, `out/`), made safe: a path git does not track is linked whole; a
 * tracked folder stands for the untracked and ignored paths inside it, each linked on its own; a tracked file is refused.
 * Returns paths relative to the repository's top, without a trailing `/`, none inside another.
 */
export async function resolveLinks(root: string, requested: readonly string[], env: Record<string, string>): Promise<string[]> {
  if (requested.length === 0) return [];
  const entries = await untrackedEntries(root, env);
  const links = new Set<string>();
  for (const asked of requested) {
    const relative = path.normalize(asked).replace(/\/+$/u, '').replace(/^\.\//u, '');
    if (path.isAbsolute(asked) || relative === '..' || relative.startsWith('../') || relative === '.' || relative === '') {
      throw new LinkError(`--link ${asked}: give a path inside the repository, relative to its top (${root})`);
    }
    if (!fs.existsSync(path.join(root, relative)))
      throw new LinkError(`--link ${asked}: ${path.join(root, relative)} does not exist; give paths relative to ${root}`);
    const tracked = (await gitText(root, ['ls-files', '-z', '--', relative], env)).split('\0').filter((f) => f !== '');
    if (tracked.length === 0) {
      links.add(relative);
      continue;
    }
    if (tracked.length === 1 && tracked[0] === relative) {
      throw new LinkError(
        `--link ${asked}: git tracks it, so each revision has its own; a link would run your tree's copy on every side. ` +
          'Link only what git does not track (`git status --ignored` lists it)',
      );
    }
    const inside = entries.filter((e) => e.path.startsWith(`${relative}/`)).map((e) => bare(e.path));
    if (inside.length === 0) {
      throw new LinkError(`--link ${asked}: a folder git tracks, with nothing untracked or ignored inside: each revision has all of it already`);
    }
    for (const entry of inside) links.add(entry);
  }
  // A link inside another is already there.
  const sorted = [...links].sort();
  return sorted.filter((link) => !sorted.some((other) => other !== link && link.startsWith(`${other}/`)));
}
