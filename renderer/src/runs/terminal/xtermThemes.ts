// xterm's colours for the dark and light schemes, and the search highlights that go with each.
import type { ISearchDecorationOptions } from '@xterm/addon-search';
import type { ITheme } from '@xterm/xterm';
import { darkScheme } from '../../shared/colourScheme.js';

export const DARK_THEME: ITheme = {
  background: '#0d1117',
  foreground: '#d6dde6',
  cursor: '#d6dde6',
  cursorAccent: '#0d1117',
  selectionBackground: '#2f4a6d',
  black: '#1b1f24',
  red: '#f47067',
  green: '#57c47a',
  yellow: '#e0b341',
  blue: '#539bf5',
  magenta: '#c38fff',
  cyan: '#39c5cf',
  white: '#c9d1d9',
  brightBlack: '#6e7681',
  brightRed: '#ff938a',
  brightGreen: '#7ee2a0',
  brightYellow: '#f2cc60',
  brightBlue: '#79b8ff',
  brightMagenta: '#dcbdfb',
  brightCyan: '#56d4dd',
  brightWhite: '#f0f6fc',
};

export const LIGHT_THEME: ITheme = {
  background: '#fbfcfd',
  foreground: '#1f2328',
  cursor: '#1f2328',
  cursorAccent: '#fbfcfd',
  selectionBackground: '#b6d3f7',
  black: '#24292f',
  red: '#cf222e',
  green: '#1a7f37',
  yellow: '#9a6700',
  blue: '#0969da',
  magenta: '#8250df',
  cyan: '#1b7c83',
  white: '#6e7781',
  brightBlack: '#57606a',
  brightRed: '#a40e26',
  brightGreen: '#116329',
  brightYellow: '#7d4e00',
  brightBlue: '#0550ae',
  brightMagenta: '#6639ba',
  brightCyan: '#136061',
  brightWhite: '#8c959f',
};

/** Search highlights; xterm wants #RRGGBB for the backgrounds. Amber, like an editor's find, readable on both schemes. */
const DARK_SEARCH: ISearchDecorationOptions = {
  matchBackground: '#5c4813',
  matchBorder: '#9a7b1c',
  matchOverviewRuler: '#9a7b1c',
  activeMatchBackground: '#b3801a',
  activeMatchBorder: '#f2cc60',
  activeMatchColorOverviewRuler: '#f2cc60',
};

const LIGHT_SEARCH: ISearchDecorationOptions = {
  matchBackground: '#fff0b3',
  matchBorder: '#d4a72c',
  matchOverviewRuler: '#d4a72c',
  activeMatchBackground: '#f2c94c',
  activeMatchBorder: '#9a6700',
  activeMatchColorOverviewRuler: '#9a6700',
};

export function terminalTheme(): ITheme {
  return darkScheme().matches ? DARK_THEME : LIGHT_THEME;
}

export function searchDecorations(): ISearchDecorationOptions {
  return darkScheme().matches ? DARK_SEARCH : LIGHT_SEARCH;
}
