// What one step of a sweep holds, as its forms take it: nothing given (steps/s), samples or tokens per step.
export type WorkKind = 'none' | 'samples' | 'tokens';
