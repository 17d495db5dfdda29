// Evaluates a workload's tokens-per-step expression (`{batch} * {seq_len}`) safely: numbers, + - * / and parentheses only.

export class ExpressionError extends Error {
  override name = 'ExpressionError';
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/gu;

/** Substitutes `{var}` with the run's values, then evaluates the arithmetic; never runs code. */
export function evaluateExpression(expression: string, values: Record<string, string>): number {
  const text = expression.replace(PLACEHOLDER, (_match, name: string) => {
    const value = values[name];
    if (value === undefined) throw new ExpressionError(`the expression uses {${name}}, which has no value`);
    if (!/^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/u.test(value)) {
      throw new ExpressionError(`{${name}} is "${value}", not a number`);
    }
    return `(${value.trim()})`;
  });
  return new ArithmeticParser(text).parse();
}

/** Recursive descent over: expr = term (('+'|'-') term)*; term = factor (('*'|'/') factor)*; factor = number | '(' expr ')' | '-' factor. */
class ArithmeticParser {
  private position = 0;

  constructor(private readonly text: string) {}

  parse(): number {
    const value = this.expression();
    this.skipSpace();
    if (this.position < this.text.length) throw new ExpressionError(`unexpected "${this.text.slice(this.position)}" in "${this.text}"`);
    if (!Number.isFinite(value)) throw new ExpressionError(`"${this.text}" is not a finite number`);
    return value;
  }

  private expression(): number {
    let value = this.term();
    for (;;) {
      const op = this.peek();
      if (op !== '+' && op !== '-') return value;
      this.position++;
      value = op === '+' ? value + this.term() : value - this.term();
    }
  }

  private term(): number {
    let value = this.factor();
    for (;;) {
      const op = this.peek();
      if (op !== '*' && op !== '/') return value;
      this.position++;
      value = op === '*' ? value * this.factor() : value / this.factor();
    }
  }

  private factor(): number {
    const next = this.peek();
    if (next === '-') {
      this.position++;
      return -this.factor();
    }
    if (next === '(') {
      this.position++;
      const value = this.expression();
      if (this.peek() !== ')') throw new ExpressionError(`missing ")" in "${this.text}"`);
      this.position++;
      return value;
    }
    const match = /^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?/u.exec(this.text.slice(this.position));
    if (!match) throw new ExpressionError(`expected a number at "${this.text.slice(this.position)}" in "${this.text}"`);
    this.position += match[0].length;
    return Number(match[0]);
  }

  private peek(): string | undefined {
    this.skipSpace();
    return this.text[this.position];
  }

  private skipSpace(): void {
    while (this.text[this.position] === ' ') this.position++;
  }
}
