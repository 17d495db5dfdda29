// Every built-in parser, most specific first: the order in which a line is offered to them.
import { createCaffeParser } from './caffe.js';
import { createFairseqParser } from './fairseq.js';
import { createGenericParser } from './generic.js';
import { createHfTrainerParser } from './hfTrainer.js';
import { createKerasParser } from './keras.js';
import { createLightningParser } from './lightning.js';
import { createLlmcParser } from './llmc.js';
import { createMegatronParser } from './megatron.js';
import { createNanoGptParser } from './nanogpt.js';
import { createPytorchExamplesParser } from './pytorchExamples.js';
import { createSyntheticParser } from './synthetic.js';
import { createTimmParser } from './timm.js';
import { createTorchtitanParser } from './torchtitan.js';
import { createTorchvisionParser } from './torchvision.js';
import { createTqdmParser } from './tqdm.js';
import type { LineParser, LineParserFactory } from './types.js';

/**
 * Specific formats, most specific first. Where two could claim the same line the earlier one is
 * the narrower: Lightning's `Epoch N:` bars before tqdm bars in general, HF Trainer's dicts before
 * the tqdm bar they are glued to. tqdm is last because bars appear beside every other format.
 */
export const SPECIFIC_PARSER_FACTORIES: readonly LineParserFactory[] = [
  createSyntheticParser,
  createHfTrainerParser,
  createLightningParser,
  createKerasParser,
  createNanoGptParser,
  createLlmcParser,
  createMegatronParser,
  createTorchtitanParser,
  createTorchvisionParser,
  createTimmParser,
  createPytorchExamplesParser,
  createFairseqParser,
  createCaffeParser,
  createTqdmParser,
];

export const GENERIC_PARSER_FACTORY: LineParserFactory = createGenericParser;

const FACTORIES_BY_NAME: ReadonlyMap<string, LineParserFactory> = new Map(
  [...SPECIFIC_PARSER_FACTORIES, GENERIC_PARSER_FACTORY].map((factory) => [factory().name, factory] as const),
);

/** New instances of the same parsers in the same order, or null when one is not a built-in parser. */
export function freshParsers(parsers: readonly LineParser[]): LineParser[] | null {
  const fresh: LineParser[] = [];
  for (const parser of parsers) {
    const factory = FACTORIES_BY_NAME.get(parser.name);
    if (factory === undefined) return null;
    fresh.push(factory());
  }
  return fresh;
}
