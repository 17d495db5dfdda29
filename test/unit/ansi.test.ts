import { describe, expect, it } from 'vitest';
import { stripAnsi, toPlainText } from '../../electron/shared/ansi.js';

describe('stripAnsi', () => {
  it('removes colours, cursor moves and OSC titles', () => {
    expect(stripAnsi('\x1b[1;32mok\x1b[0m \x1b[2K\x1b[Adone\x1b]0;title\x07!')).toBe('ok done!');
  });
});

describe('toPlainText', () => {
  it('keeps the last state of a \\r progress bar', () => {
    expect(toPlainText('start\n 10%|#  |\r 50%|## |\r100%|###|\nend\n')).toBe('start\n100%|###|\nend\n');
  });

  it('keeps CRLF line ends readable', () => {
    expect(toPlainText('a\r\nb\r\n')).toBe('a\nb\n');
  });
});
