// What a Copy button says after it was pressed: the terminal's and an error's command use the same three states.
export type CopyStatus = 'idle' | 'copied' | 'failed';
