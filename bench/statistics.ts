// `node --import tsx bench/statistics.ts`: runs the verdict's calibration simulation and writes its tables into
// docs/statistics.md, between the markers there (the unit test checks the document holds the current table).
import fs from 'node:fs';
import path from 'node:path';
import { calibrationTable } from './verdictSimulation.js';

const BEGIN = '<!-- calibration table: bench/statistics.ts writes from here -->';
const END = '<!-- calibration table: to here -->';

const file = path.join(import.meta.dirname, '..', 'docs', 'statistics.md');
const started = performance.now();
const table = calibrationTable();
const doc = fs.readFileSync(file, 'utf8');
const from = doc.indexOf(BEGIN);
const to = doc.indexOf(END);
if (from < 0 || to < from) throw new Error(`${file} has no ${BEGIN} ... ${END} block to fill`);
fs.writeFileSync(file, `${doc.slice(0, from + BEGIN.length)}\n${table.markdown}\n${doc.slice(to)}`);
process.stdout.write(`${table.markdown}\n\nwritten to ${file} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
