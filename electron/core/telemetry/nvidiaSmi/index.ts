// nvidia-smi: field resolution, CSV samples, throttle reasons, the XML info card, process memory.
export * from './card.js';
export * from './computeApps.js';
export * from './csv.js';
export * from './fields.js';
export * from './messages.js';
export * from './throttle.js';
export * from './values.js';
export * from './xml.js';
export { parseXml, type XmlElement, type XmlParseResult } from './xmlParser.js';
