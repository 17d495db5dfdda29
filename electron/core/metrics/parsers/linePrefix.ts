// Where a log line's own text starts after the heads that loggers, launchers, job runners and log shippers put in front of it.

/*
 * WHAT COUNTS AS A PREFIX. Heads are read one after another from the line's start, each of:
 *   - a date-time stamp: ISO-8601 and its relatives (`2024-05-02T13:45:01.123456789Z`,
 *     `2024-05-02 13:45:01,123`, `2024/05/02 13:45:01`, `+02:00` / `+0200` / `Z` / ` UTC` zones),
 *     a time of day alone (`13:45:01.123`), syslog's `May  2 13:45:01`, glog's `I0502 13:45:01.123 42 file.cc:7]`;
 *     GitLab's stream marker after a stamp (`00O`, `01E+`); a syslog/journal `host proc[pid]:` or `host kernel:`
 *     after a stamp, and the kernel's `[ 1234.567890]` uptime;
 *   - `> ` (quoted output);
 *   - a bracketed stamp, level, rank or launcher tag: `[2024-05-02 13:45:01,123]`, `[INFO]`, `[rank0]:`,
 *     `[Rank 3]`, `[default0]:` (torchrun's tee), `[1,0]<stdout>:` (mpirun's tag-output), `[titan]`,
 *     `[logging.py:96:log_dist]` (DeepSpeed's source location);
 *   - `rank 0:` / `rank0:`; Ray's `(RayTrainWorker pid=4242, ip=10.0.0.1)`; kubectl's `[pod/trainer-0/main]`;
 *   - transformers' `[INFO|trainer.py:2048] 2024-05-02 13:45:01,123 >> `;
 *   - Python logging's level and logger name: `INFO:root:`, `INFO - train - `, `train - INFO - `
 *     after a stamp, loguru's `| INFO     | module:func:42 - `.
 * Between heads: spaces and one of ` - `, ` | `, `: `. After the last head, ` - ` (or after a level
 * ` | ` / `: `) and one space go with the prefix and the rest (an indent, say) stays with the line,
 * so a prefixed line reads exactly as the bare line would. Heads that their writers glue to the text
 * (`INFO:root:`, mpirun's `[1,0]<stdout>:`) take no space; `[rank0]:` is written both ways, and a
 * space after it is taken as the separator.
 *
 * Speed: every line of a log meets this. A line is looked at further only when its first
 * character can open a head (a digit, `[`, `>`, `r`/`R`, or an upper-case letter that starts a
 * level, a month or glog's severity), and each head is read by comparing characters, no regex.
 */

/**
 * Heads read at most: `[rank0]:[titan] 2025-06-16 22:30:50,322 - root - INFO - ` is seven, and launchers stack
 * (kubectl's pod, Ray's worker, syslog, then the script's logger and transformers' own): four prefixes of up to four
 * heads each. A bound all the same, so a line of many bracketed words costs a fixed amount of reading.
 */
const MAX_HEADS = 16;
/** A bracketed head is short; a longer bracket is the line's own text (a list, a bar's stats). */
const MAX_BRACKET_CHARS = 64;
/** Logger names (`__main__`, `transformers.trainer`, `module:func:42`) are at most this long. */
const MAX_NAME_CHARS = 80;

const LEVELS: readonly string[] = ['INFO', 'WARNING', 'WARN', 'ERROR', 'DEBUG', 'CRITICAL', 'FATAL', 'NOTICE', 'TRACE', 'SUCCESS'];
const MONTHS: readonly string[] = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** Launcher tags in brackets that carry no digit or colon of their own. */
const BRACKET_TAGS: readonly string[] = ['titan'];

const SPACE = 0x20;
const TAB = 0x09;
const COLON = 0x3a;
const DASH = 0x2d;
const PIPE = 0x7c;

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
const isUpper = (code: number): boolean => code >= 0x41 && code <= 0x5a;
const isLower = (code: number): boolean => code >= 0x61 && code <= 0x7a;
const isSpaceCode = (code: number): boolean => code === SPACE || code === TAB;

/**
 * The characters a head can start with, by code: digits (stamps), `[`, `(`, `>`, `r`/`R` (ranks), and the
 * first letters of levels (I W E D C F N T S), months (J F M A S O N D) and glog severities (I W E F).
 */
const OPENS_HEAD = new Uint8Array(128);
for (const opener of '0123456789[(>rRIWEDCFNTSJMAO') OPENS_HEAD[opener.charCodeAt(0)] = 1;

/** Whether a head can start with this character: the no-prefix fast path. */
function mayOpenHead(code: number): boolean {
  return code < 128 && OPENS_HEAD[code] === 1;
}

/**
 * Reads a line's prefix. One instance is reused for every line (no allocation per line): `read`
 * returns where the line's own text starts and leaves the stamp's time in `wallTimeMs`.
 */
export class LinePrefixReader {
  /** The prefix's stamp as milliseconds (UTC when no zone was printed; since midnight for a time alone), or null. */
  wallTimeMs: number | null = null;
  /** Where the last `read*` helper stopped. */
  private at = 0;
  /** The last head read was a logging level (and its logger name). */
  private levelRead = false;
  /** The last head read is one that its writer glues to the text (`INFO:root:`, `[1,0]<stdout>:`): a space after it is the text's own. */
  private gluedHead = false;

  /** Where the line's own text starts: 0 when it has no prefix. */
  read(line: string): number {
    this.wallTimeMs = null;
    let at = 0;
    while (at < line.length && isSpaceCode(line.charCodeAt(at))) at++;
    if (at >= line.length || !mayOpenHead(line.charCodeAt(at))) return 0;
    let end = 0;
    let lastWasLevel = false;
    let lastIsGlued = false;
    for (let heads = 0; heads < MAX_HEADS; heads++) {
      this.levelRead = false;
      this.gluedHead = false;
      if (!this.readHead(line, at) && !(heads > 0 && this.readNameThenLevel(line, at))) break;
      lastWasLevel = this.levelRead;
      lastIsGlued = this.gluedHead;
      end = this.at;
      at = skipSeparator(line, end);
    }
    if (end === 0) {
      this.wallTimeMs = null;
      return 0;
    }
    // The separator after the last head goes with the prefix, then one space; anything more is the line's own indent.
    let after = end;
    while (isSpaceCode(line.charCodeAt(after))) after++;
    const separator = line.charCodeAt(after);
    // ` - ` ends any head (`%(asctime)s - %(message)s`); ` | ` and `: ` only a level's (loguru, `INFO: `), since
    // lines of their own start with them (fairseq's `| epoch 001 | loss 3.2`).
    const ends = separator === DASH || (lastWasLevel && (separator === PIPE || separator === COLON));
    if (ends && (after + 1 === line.length || isSpaceCode(line.charCodeAt(after + 1)))) {
      end = after + 1;
    }
    return !lastIsGlued && isSpaceCode(line.charCodeAt(end)) ? end + 1 : end;
  }

  /** One head at `at`; on success `this.at` is its end. */
  private readHead(line: string, at: number): boolean {
    const code = line.charCodeAt(at);
    if (isDigit(code)) return this.readStamp(line, at);
    if (code === 0x5b) return this.readBracket(line, at);
    if (code === 0x3e) {
      // `> ` (quoted output) and transformers' `>> ` between its head and the message.
      const end = line.charCodeAt(at + 1) === 0x3e ? at + 2 : at + 1;
      if (line.charCodeAt(end) !== SPACE) return false;
      this.at = end;
      return true;
    }
    if (code === 0x28) return this.readRayWorker(line, at);
    if (code === 0x72 || code === 0x52) return this.readRank(line, at, false);
    if (!isUpper(code)) return false;
    return this.readLevel(line, at) || this.readSyslogStamp(line, at) || this.readGlog(line, at);
  }

  /** `2024-05-02T13:45:01.123Z`, `2024/05/02 13:45:01`, `05/02/2024 13:45:01`, `13:45:01,123`, then a zone, a GitLab marker, a syslog host. */
  private readStamp(line: string, at: number): boolean {
    let days = 0;
    let timeAt = at;
    const date = readDate(line, at);
    if (date !== null) {
      const between = line.charCodeAt(at + 10);
      if (between !== 0x54 /* T */ && between !== SPACE) return false;
      days = date;
      timeAt = at + 11;
    }
    if (!this.readTimeOfDay(line, timeAt)) return false;
    const timeMs = this.wallTimeMs ?? 0;
    let offsetMs = 0;
    let end = this.at;
    const zone = line.charCodeAt(end);
    if (zone === 0x5a /* Z */) end++;
    else if ((zone === 0x2b || zone === DASH) && isDigits(line, end + 1, 2)) {
      const sign = zone === DASH ? -1 : 1;
      const hours = digitsValue(line, end + 1, 2);
      let minutesAt = end + 3;
      if (line.charCodeAt(minutesAt) === COLON) minutesAt++;
      const minutes = isDigits(line, minutesAt, 2) ? digitsValue(line, minutesAt, 2) : 0;
      end = isDigits(line, minutesAt, 2) ? minutesAt + 2 : end + 3;
      offsetMs = sign * (hours * 60 + minutes) * 60_000;
    } else if (zone === SPACE && line.startsWith('UTC', end + 1) && !isLetterAt(line, end + 4)) end += 4;
    this.wallTimeMs = days * MS_PER_DAY + timeMs - offsetMs;
    // GitLab's job log: a stream marker after the stamp (`00O`, `01E`, `00O+`).
    if (line.charCodeAt(end) === SPACE && isDigits(line, end + 1, 2)) {
      const stream = line.charCodeAt(end + 3);
      if ((stream === 0x4f || stream === 0x45) && (end + 4 >= line.length || line.charCodeAt(end + 4) === SPACE || line.charCodeAt(end + 4) === 0x2b)) {
        end += line.charCodeAt(end + 4) === 0x2b ? 5 : 4;
      }
    }
    this.at = end;
    this.readSyslogHost(line);
    return true;
  }

  /** `HH:MM:SS` with an optional `.fraction` / `,ms`, followed by the end, a space, a zone or `]`. */
  private readTimeOfDay(line: string, at: number): boolean {
    if (!isDigits(line, at, 2) || line.charCodeAt(at + 2) !== COLON || !isDigits(line, at + 3, 2)) return false;
    if (line.charCodeAt(at + 5) !== COLON || !isDigits(line, at + 6, 2)) return false;
    const hours = digitsValue(line, at, 2);
    const minutes = digitsValue(line, at + 3, 2);
    const seconds = digitsValue(line, at + 6, 2);
    if (hours > 23 || minutes > 59 || seconds > 60) return false;
    let end = at + 8;
    let fractionMs = 0;
    const mark = line.charCodeAt(end);
    if ((mark === 0x2e || mark === 0x2c) && isDigit(line.charCodeAt(end + 1))) {
      let scale = 100;
      end++;
      while (isDigit(line.charCodeAt(end))) {
        fractionMs += (line.charCodeAt(end) - 0x30) * scale;
        scale /= 10;
        end++;
      }
    }
    const after = line.charCodeAt(end);
    // A stamp ends the line or is followed by a separator, a zone or a closing bracket; `12:30:45abc` is not one.
    if (
      end < line.length &&
      !(isSpaceCode(after) || after === 0x5a || after === 0x2b || after === DASH || after === 0x5d || after === COLON || after === PIPE)
    ) {
      return false;
    }
    this.wallTimeMs = ((hours * 60 + minutes) * 60 + seconds) * 1000 + Math.round(fractionMs);
    this.at = end;
    return true;
  }

  /** After a stamp: syslog's or the journal's `host proc[pid]:` (the pid in brackets is what marks it) or `host kernel:`. */
  private readSyslogHost(line: string): void {
    let at = this.at;
    if (line.charCodeAt(at) !== SPACE) return;
    at++;
    // Bounded scans, not indexOf: on a line that has no such head they would read the whole line.
    const hostEnd = scanWhile(line, at, isHostCode);
    if (hostEnd === at || line.charCodeAt(hostEnd) !== SPACE) return;
    if (line.startsWith('kernel: ', hostEnd + 1)) {
      // The kernel's lines carry no pid.
      this.at = hostEnd + 'kernel:'.length + 1;
      return;
    }
    const open = scanWhile(line, hostEnd + 1, isHostCode);
    if (open === hostEnd + 1 || line.charCodeAt(open) !== 0x5b) return;
    const close = scanWhile(line, open + 1, isDigit);
    if (close === open + 1 || line.charCodeAt(close) !== 0x5d || line.charCodeAt(close + 1) !== COLON || line.charCodeAt(close + 2) !== SPACE) return;
    this.at = close + 2;
  }

  /** syslog's `May  2 13:45:01` (no year). */
  private readSyslogStamp(line: string, at: number): boolean {
    if (line.charCodeAt(at + 3) !== SPACE) return false;
    let month = 0;
    while (month < MONTHS.length && !line.startsWith(MONTHS[month] ?? '', at)) month++;
    if (month === MONTHS.length) return false;
    let dayAt = at + 4;
    if (line.charCodeAt(dayAt) === SPACE) dayAt++;
    let dayEnd = dayAt;
    while (dayEnd < dayAt + 2 && isDigit(line.charCodeAt(dayEnd))) dayEnd++;
    if (dayEnd === dayAt || line.charCodeAt(dayEnd) !== SPACE) return false;
    const day = digitsValue(line, dayAt, dayEnd - dayAt);
    if (!this.readTimeOfDay(line, dayEnd + 1)) return false;
    // No year is printed: 2000 (a leap year) keeps 29 Feb; only differences between stamps are used.
    this.wallTimeMs = daysFromCivil(2000, month + 1, day) * MS_PER_DAY + (this.wallTimeMs ?? 0);
    this.readSyslogHost(line);
    return true;
  }

  /** glog / absl: `I0502 13:45:01.123456  1234 file.py:123] `. */
  private readGlog(line: string, at: number): boolean {
    const severity = line.charCodeAt(at);
    if (!(severity === 0x49 || severity === 0x57 || severity === 0x45 || severity === 0x46)) return false;
    if (!isDigits(line, at + 1, 4) || line.charCodeAt(at + 5) !== SPACE) return false;
    if (!this.readTimeOfDay(line, at + 6)) return false;
    const close = line.indexOf('] ', this.at);
    if (close === -1 || close - this.at > MAX_NAME_CHARS) return false;
    const timeMs = this.wallTimeMs ?? 0;
    this.wallTimeMs = daysFromCivil(2000, digitsValue(line, at + 1, 2), digitsValue(line, at + 3, 2)) * MS_PER_DAY + timeMs;
    this.at = close + 1;
    return true;
  }

  /** `INFO:name:`, `INFO - name - `, `INFO     | module:func:42 - `, `INFO ` (a level before the text). */
  private readLevel(line: string, at: number): boolean {
    const level = levelAt(line, at);
    if (level === undefined) return false;
    this.levelRead = true;
    let end = at + level.length;
    const next = line.charCodeAt(end);
    if (next === COLON) {
      // basicConfig's `LEVEL:name:message`: the name runs to the next colon.
      const nameEnd = line.indexOf(':', end + 1);
      const named = nameEnd !== -1 && nameEnd - end <= MAX_NAME_CHARS && isNameRun(line, end + 1, nameEnd);
      this.at = named ? nameEnd + 1 : end + 1;
      this.gluedHead = named;
      return true;
    }
    if (!isSpaceCode(next) && end < line.length) return false;
    this.at = end;
    // A logger name after the level: ` - name - ` or loguru's `| module:func:42 - `.
    end = skipSeparator(line, end);
    const nameEnd = nameBeforeDash(line, end);
    // A second level is a head of its own, not this one's logger name.
    if (nameEnd === -1) return true;
    const second = levelAt(line, end);
    if (second === undefined || (nameEnd - 2 - end !== second.length && line.charCodeAt(end + second.length) !== COLON)) this.at = nameEnd;
    return true;
  }

  /** Python logging's `%(name)s - %(levelname)s - ` after a stamp: `root - INFO - `. */
  private readNameThenLevel(line: string, at: number): boolean {
    const nameEnd = nameBeforeDash(line, at);
    if (nameEnd === -1 || line.charCodeAt(nameEnd) !== SPACE) return false;
    return this.readLevel(line, nameEnd + 1);
  }

  /** `[...]` holding a stamp, a level, a rank, a launcher tag or a source location; then an optional `:` or `<stdout>:`. */
  private readBracket(line: string, at: number): boolean {
    let close = at + 1;
    const limit = Math.min(line.length, at + MAX_BRACKET_CHARS);
    while (close < limit && line.charCodeAt(close) !== 0x5d) close++;
    if (close >= limit || close === at + 1) return false;
    const inner = at + 1;
    const first = line.charCodeAt(inner);
    let known = false;
    if (isDigit(first)) {
      known = (this.readStamp(line, inner) && this.at === close) || isRankPair(line, inner, close);
    } else if (first === 0x72 || first === 0x52) {
      known = this.readRank(line, inner, true) && this.at === close;
    }
    if (!known && isUpper(first)) {
      const level = levelAt(line, inner);
      known = (level !== undefined && inner + level.length === close) || (this.readSyslogStamp(line, inner) && this.at === close);
    }
    if (!known) known = isTag(line, inner, close) || isUptime(line, inner, close);
    if (!known) return false;
    let end = close + 1;
    if (line.startsWith('<stdout>', end) || line.startsWith('<stderr>', end)) {
      end += '<stdout>'.length;
      this.gluedHead = true;
    }
    if (line.charCodeAt(end) === COLON) end++;
    this.at = end;
    return true;
  }

  /** Ray's tag on a worker's output: `(RayTrainWorker pid=4242, ip=10.0.0.1) `, `(pid=4242) `. */
  private readRayWorker(line: string, at: number): boolean {
    let close = at + 1;
    const limit = Math.min(line.length, at + MAX_BRACKET_CHARS);
    while (close < limit && line.charCodeAt(close) !== 0x29) close++;
    if (close >= limit) return false;
    let pid = -1;
    for (let i = at + 1; i + 4 < close && pid === -1; i++) if (line.charCodeAt(i) === 0x70 && line.startsWith('pid=', i)) pid = i;
    if (pid === -1 || !isDigit(line.charCodeAt(pid + 4))) return false;
    this.at = close + 1;
    return true;
  }

  /** `rank 0:`, `rank0:`, `Rank 3` (in brackets no colon is needed). */
  private readRank(line: string, at: number, inBracket: boolean): boolean {
    if (!(line.startsWith('rank', at) || line.startsWith('Rank', at) || line.startsWith('RANK', at))) return false;
    let end = at + 4;
    if (line.charCodeAt(end) === SPACE) end++;
    const digitsStart = end;
    while (isDigit(line.charCodeAt(end))) end++;
    if (end === digitsStart) return false;
    if (!inBracket) {
      if (line.charCodeAt(end) !== COLON) return false;
      end++;
    }
    this.at = end;
    return true;
  }
}

/** The logging level that starts at `at`, if one does. */
function levelAt(line: string, at: number): string | undefined {
  const first = line.charCodeAt(at);
  for (const level of LEVELS) if (level.charCodeAt(0) === first && line.startsWith(level, at)) return level;
  return undefined;
}

/** After a head: spaces, then ` - `, ` | ` or `: ` (with their spaces); the next head starts there. */
function skipSeparator(line: string, at: number): number {
  let end = at;
  while (isSpaceCode(line.charCodeAt(end))) end++;
  const code = line.charCodeAt(end);
  if ((code === DASH || code === PIPE || code === COLON) && isSpaceCode(line.charCodeAt(end + 1))) {
    end++;
    while (isSpaceCode(line.charCodeAt(end))) end++;
  }
  return end;
}

/** A logger name at `at` followed by ` - ` (or a level after ` - `): the end of the name's ` -`, or -1. */
function nameBeforeDash(line: string, at: number): number {
  let end = at;
  const limit = Math.min(line.length, at + MAX_NAME_CHARS);
  while (end < limit && isNameCode(line.charCodeAt(end))) end++;
  if (end === at || line.charCodeAt(end) !== SPACE || line.charCodeAt(end + 1) !== DASH || line.charCodeAt(end + 2) !== SPACE) return -1;
  return end + 2;
}

/** Characters of a logger name: `__main__`, `transformers.trainer`, `<module>`, `module:func:42`. */
function isNameCode(code: number): boolean {
  return isLower(code) || isUpper(code) || isDigit(code) || code === 0x5f || code === 0x2e || code === COLON || code === 0x3c || code === 0x3e;
}

function isNameRun(line: string, from: number, to: number): boolean {
  if (from >= to) return false;
  for (let i = from; i < to; i++) {
    const code = line.charCodeAt(i);
    if (!(isLower(code) || isUpper(code) || isDigit(code) || code === 0x5f || code === 0x2e || code === 0x3c || code === 0x3e)) return false;
  }
  return true;
}

/** The kernel's uptime stamp (dmesg, the journal): `[ 1234.567890]`. */
function isUptime(line: string, from: number, to: number): boolean {
  let at = from;
  while (at < to && line.charCodeAt(at) === SPACE) at++;
  const point = line.indexOf('.', at);
  return point > at && point < to - 1 && isDigits(line, at, point - at) && isDigits(line, point + 1, to - point - 1);
}

/** mpirun's `[1,0]`: job and rank. */
function isRankPair(line: string, from: number, to: number): boolean {
  const comma = line.indexOf(',', from);
  return comma > from && comma < to - 1 && isDigits(line, from, comma - from) && isDigits(line, comma + 1, to - comma - 1);
}

/**
 * A launcher tag or source location in brackets: a known tag (`titan`), a role and local rank
 * (`default0`, `worker-3`), or a Python source position (`logging.py:96:log_dist`). Words in
 * brackets that are neither (`[train]`, `[Epoch 1]`) are the line's own text.
 */
function isTag(line: string, from: number, to: number): boolean {
  for (const tag of BRACKET_TAGS) if (to - from === tag.length && line.startsWith(tag, from)) return true;
  // `kubectl logs --prefix`: `[pod/trainer-0/main]`.
  if (line.startsWith('pod/', from)) return true;
  for (let i = from; i + 4 <= to; i++) if (line.charCodeAt(i) === 0x2e && line.startsWith('.py:', i)) return true;
  if (!isLower(line.charCodeAt(from)) || !isDigit(line.charCodeAt(to - 1))) return false;
  for (let i = from; i < to; i++) {
    const code = line.charCodeAt(i);
    if (!(isLower(code) || isDigit(code) || code === DASH || code === 0x5f)) return false;
  }
  return true;
}

/** Days since 1970 of a date at `at` (`YYYY-MM-DD`, `YYYY/MM/DD`, or HF's `MM/DD/YYYY`), or null. */
function readDate(line: string, at: number): number | null {
  let year: number;
  let month: number;
  let day: number;
  const fifth = line.charCodeAt(at + 4);
  if (isDigits(line, at, 4) && (fifth === DASH || fifth === 0x2f)) {
    if (!isDigits(line, at + 5, 2) || line.charCodeAt(at + 7) !== fifth || !isDigits(line, at + 8, 2)) return null;
    year = digitsValue(line, at, 4);
    month = digitsValue(line, at + 5, 2);
    day = digitsValue(line, at + 8, 2);
  } else if (
    isDigits(line, at, 2) &&
    line.charCodeAt(at + 2) === 0x2f &&
    isDigits(line, at + 3, 2) &&
    line.charCodeAt(at + 5) === 0x2f &&
    isDigits(line, at + 6, 4)
  ) {
    month = digitsValue(line, at, 2);
    day = digitsValue(line, at + 3, 2);
    year = digitsValue(line, at + 6, 4);
  } else {
    return null;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  return daysFromCivil(year, month, day);
}

/** Where a run of characters that pass `test` ends, reading at most MAX_NAME_CHARS of them. */
function scanWhile(line: string, from: number, test: (code: number) => boolean): number {
  const limit = Math.min(line.length, from + MAX_NAME_CHARS);
  let at = from;
  while (at < limit && test(line.charCodeAt(at))) at++;
  return at;
}

/** Characters of a host or program name in a syslog head: `gpu-node`, `python3`, `train.py`. */
function isHostCode(code: number): boolean {
  return isLower(code) || isUpper(code) || isDigit(code) || code === DASH || code === 0x5f || code === 0x2e || code === 0x2f;
}

const MS_PER_DAY = 86_400_000;

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (month 1-12), by Howard Hinnant's
 * days_from_civil: arithmetic, where Date.UTC costs a call into the runtime on every stamped line.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function isDigits(line: string, at: number, count: number): boolean {
  if (count <= 0 || at + count > line.length) return false;
  for (let i = at; i < at + count; i++) if (!isDigit(line.charCodeAt(i))) return false;
  return true;
}

function digitsValue(line: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) value = value * 10 + (line.charCodeAt(i) - 0x30);
  return value;
}

function isLetterAt(line: string, at: number): boolean {
  const code = line.charCodeAt(at);
  return isLower(code) || isUpper(code);
}
