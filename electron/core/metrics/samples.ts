// Metric samples as the engine stores them: declared with the store's other records, named here for the parsers.
export type { MetricKind, MetricSample, MetricSource } from '../store/records.js';
