// No input makes a parser, the splitter or the whole pipeline throw: random strings, random bytes, mangled log lines.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allParsers, parseLogText, splitGluedBar } from '../../../electron/core/metrics/parsers/index.js';

/** Real-looking fragments, so random mixes reach deep into each parser's patterns. */
const FRAGMENTS = [
  'iter ',
  'step ',
  ': loss ',
  ', time ',
  'ms',
  ', mfu ',
  '%',
  ' | ',
  'norm ',
  'lr ',
  'tok/s',
  "{'loss': ",
  "'eval_loss': ",
  '}',
  '|█▍  | ',
  '/',
  ' [',
  '00:01<00:02',
  ', ',
  'it/s',
  's/it',
  ']',
  'Epoch ',
  ': [',
  '][',
  'Train: ',
  'Test: [',
  'Loss ',
  ' (',
  ')',
  'Acc@1 ',
  ' iteration ',
  'consumed samples: ',
  'lm loss: ',
  'E+01',
  'nan',
  '-inf',
  '1,234',
  '12.5',
  '0',
  '-100.00',
  '\t',
  '=',
  'val loss ',
  '***** eval metrics *****',
  '  eval_loss = ',
  ' - loss: ',
  '422/422 [=====]',
  '━━',
  'Namespace(',
  'I0808 13:46:45.056787  2527 solver.cpp:142] ',
  'Test score #0: ',
  '| epoch 010 ',
  "valid on 'valid' subset",
  'step:',
  'tps: ',
  'GiB(',
  '\x1b[32m',
  '\r',
  '\n',
  '\b',
  '😀',
  '\u0000',
];

const everyParserThenPipeline = (text: string): void => {
  for (const line of text.split(/\r|\n/u)) {
    for (const part of splitGluedBar(line)) {
      for (const parser of allParsers()) {
        if (parser.matches(part)) {
          const record = parser.parse(part);
          if (record !== null) expect(typeof record.values).toBe('object');
        }
      }
    }
  }
  parseLogText(text);
};

describe('robustness', () => {
  it('never throws on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), everyParserThenPipeline), { numRuns: 3000 });
  });

  it('never throws on random bytes decoded as UTF-8', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => everyParserThenPipeline(Buffer.from(bytes).toString('utf8'))),
      { numRuns: 3000 },
    );
  });

  it('never throws on mixes of log fragments', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }), (parts) => everyParserThenPipeline(parts.join(''))),
      { numRuns: 5000 },
    );
  });

  it('keeps every parser state consistent across many random lines in one log', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 12 }), { maxLength: 60 }), (lines) => {
        const { records } = parseLogText(lines.map((parts) => parts.join('')).join('\n'));
        for (const record of records) {
          expect(record.step === null || Number.isInteger(record.step)).toBe(true);
          expect(record.line).toBeGreaterThan(0);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
