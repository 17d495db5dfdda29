// A small XML reader for `nvidia-smi -q -x`: elements, attributes, text, the five named entities and
// character references, comments, CDATA, processing instructions and the DOCTYPE line (also with
// an internal subset, as `--dtd` prints). No namespaces, no external entities. Never throws.
// Kept over fast-xml-parser 5, which builds the same tree from every capture but, unvalidated, takes
// an unclosed `<a>` or `<a></b>` as a document (a cut-off `-q -x` must be refused), validated,
// refuses the stray end tags this reader skips, and drops `&#xD800;` where this keeps it as written.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text (not its children's), entities decoded, untrimmed. */
  text: string;
}

export type XmlParseResult = { ok: true; root: XmlElement } | { ok: false; error: string; offset: number };

const NAME = /[A-Za-z_:][-A-Za-z0-9_.:]*/uy;
const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Decodes `&lt;`, `&#65;`, `&#x41;`; an unknown or malformed reference is kept as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9A-Fa-f]{1,6}|#[0-9]{1,7}|[A-Za-z]+);/gu, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref] ?? whole;
  });
}

class XmlError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

export function parseXml(input: string): XmlParseResult {
  try {
    return { ok: true, root: new Reader(input).document() };
  } catch (error) {
    if (error instanceof XmlError) return { ok: false, error: error.message, offset: error.offset };
    return { ok: false, error: String(error), offset: 0 };
  }
}

class Reader {
  private pos = 0;
  private readonly stack: XmlElement[] = [];
  private root: XmlElement | null = null;

  constructor(private readonly src: string) {
    if (src.charCodeAt(0) === 0xfeff) this.pos = 1;
  }

  document(): XmlElement {
    const { src } = this;
    while (this.pos < src.length) {
      const lt = src.indexOf('<', this.pos);
      const textEnd = lt < 0 ? src.length : lt;
      if (textEnd > this.pos) this.text(src.slice(this.pos, textEnd));
      if (lt < 0) break;
      this.pos = lt;
      if (src.startsWith('<!--', lt)) this.skipPast('-->', 'comment');
      else if (src.startsWith('<![CDATA[', lt)) this.cdata();
      else if (src.startsWith('<?', lt)) this.skipPast('?>', 'processing instruction');
      else if (src.startsWith('<!', lt)) this.doctype();
      else if (src.startsWith('</', lt)) this.closeTag();
      else this.openTag();
    }
    if (this.stack.length > 0) throw new XmlError(`unexpected end of document inside <${this.stack[this.stack.length - 1]!.name}>`, this.pos);
    if (!this.root) throw new XmlError('no root element', this.pos);
    return this.root;
  }

  private text(raw: string): void {
    const top = this.stack[this.stack.length - 1];
    if (top) top.text += decodeEntities(raw);
    else if (raw.trim() !== '') throw new XmlError('text outside the root element', this.pos);
  }

  private skipPast(terminator: string, what: string): void {
    const end = this.src.indexOf(terminator, this.pos);
    if (end < 0) throw new XmlError(`unterminated ${what}`, this.pos);
    this.pos = end + terminator.length;
  }

  private cdata(): void {
    const start = this.pos + '<![CDATA['.length;
    const end = this.src.indexOf(']]>', start);
    if (end < 0) throw new XmlError('unterminated CDATA section', this.pos);
    const top = this.stack[this.stack.length - 1];
    if (!top) throw new XmlError('CDATA outside the root element', this.pos);
    top.text += this.src.slice(start, end);
    this.pos = end + 3;
  }

  /** `<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v13.dtd">`, or with `[ ... ]` inside. */
  private doctype(): void {
    const { src } = this;
    let i = this.pos + 2;
    let quote: string | null = null;
    let depth = 0;
    for (; i < src.length; i += 1) {
      const ch = src[i]!;
      if (quote) {
        if (ch === quote) quote = null;
      } else if (ch === '"' || ch === "'") {
        quote = ch;
      } else if (ch === '[') {
        depth += 1;
      } else if (ch === ']') {
        depth = Math.max(0, depth - 1);
      } else if (ch === '>' && depth === 0) {
        this.pos = i + 1;
        return;
      }
    }
    throw new XmlError('unterminated declaration', this.pos);
  }

  private name(): string {
    NAME.lastIndex = this.pos;
    const match = NAME.exec(this.src);
    if (!match) throw new XmlError('expected a name', this.pos);
    this.pos += match[0].length;
    return match[0];
  }

  private spaces(): void {
    while (/\s/u.test(this.src[this.pos] ?? '')) this.pos += 1;
  }

  private openTag(): void {
    this.pos += 1;
    const element: XmlElement = { name: this.name(), attributes: {}, children: [], text: '' };
    for (;;) {
      this.spaces();
      const ch = this.src[this.pos];
      if (ch === undefined) throw new XmlError(`unterminated tag <${element.name}>`, this.pos);
      if (ch === '>' || this.src.startsWith('/>', this.pos)) break;
      const attribute = this.name();
      this.spaces();
      if (this.src[this.pos] !== '=') throw new XmlError(`attribute ${attribute} has no value`, this.pos);
      this.pos += 1;
      this.spaces();
      element.attributes[attribute] = this.attributeValue();
    }
    const selfClosing = this.src[this.pos] === '/';
    this.pos += selfClosing ? 2 : 1;
    const parent = this.stack[this.stack.length - 1];
    if (parent) parent.children.push(element);
    else if (this.root) throw new XmlError(`a second root element <${element.name}>`, this.pos);
    else this.root = element;
    if (!selfClosing) this.stack.push(element);
  }

  private attributeValue(): string {
    const quote = this.src[this.pos];
    if (quote === '"' || quote === "'") {
      const end = this.src.indexOf(quote, this.pos + 1);
      if (end < 0) throw new XmlError('unterminated attribute value', this.pos);
      const value = this.src.slice(this.pos + 1, end);
      this.pos = end + 1;
      return decodeEntities(value);
    }
    // Lenient: an unquoted value runs to the next space or tag end.
    const match = /[^\s>/]*/uy;
    match.lastIndex = this.pos;
    const value = match.exec(this.src)![0];
    this.pos += value.length;
    return decodeEntities(value);
  }

  private closeTag(): void {
    this.pos += 2;
    const name = this.name();
    this.spaces();
    if (this.src[this.pos] !== '>') throw new XmlError(`malformed end tag </${name}>`, this.pos);
    this.pos += 1;
    // Lenient about nesting: close up to the nearest open element of that name; ignore a stray one.
    const at = this.stack.map((e) => e.name).lastIndexOf(name);
    if (at < 0) {
      if (this.stack.length === 0) throw new XmlError(`end tag </${name}> with nothing open`, this.pos);
      return;
    }
    this.stack.length = at;
  }
}

/** The first child element of that name. */
export function child(element: XmlElement | null | undefined, name: string): XmlElement | null {
  return element?.children.find((c) => c.name === name) ?? null;
}

/** All child elements of that name. */
export function childrenNamed(element: XmlElement | null | undefined, name: string): XmlElement[] {
  return element ? element.children.filter((c) => c.name === name) : [];
}

/** The trimmed text at a path of child names (`textAt(gpu, 'fb_memory_usage', 'total')`), or null. */
export function textAt(element: XmlElement | null | undefined, ...path: string[]): string | null {
  let current: XmlElement | null | undefined = element;
  for (const name of path) current = child(current, name);
  return current ? current.text.trim() : null;
}
