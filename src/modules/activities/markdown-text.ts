/** Activity content as plain text: Markdown becomes readable text. Pure; never throws. */

export interface ActivityContent {
  type: 'text' | 'markdown';
  value: string;
}

/** Markdown becomes readable plain text; plain text is returned trimmed. Anything else gives "". */
export function plainText(content: ActivityContent): string {
  try {
    if (content === null || typeof content !== 'object' || typeof content.value !== 'string') return '';
    if (content.type !== 'markdown') return content.value.trim();
    return markdownToText(content.value);
  } catch {
    // Defensive: the converter is plain string work and is not expected to fail.
    return typeof content?.value === 'string' ? content.value.trim() : '';
  }
}

/**
 * Placeholders are U+E000 <index> U+E001 (private-use characters, removed from the input first, so they
 * cannot collide with it).
 */
const PLACEHOLDER = /\uE000(\d+)\uE001/g;
const PRIVATE_MARKERS = /[\uE000\uE001]/g;

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const LIST_ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const TASK_BOX = /^\[[ xX]\][ \t]+/;
const REFERENCE_DEFINITION = /^ {0,3}\[((?:[^\]\\]|\\.){1,999})\]:[ \t]*(?:<[^<>\n]*>|\S+)(?:[ \t]+(?:"[^"]*"|'[^']*'|\([^()]*\)))?[ \t]*$/;
const FOOTNOTE_DEFINITION = /^ {0,3}\[\^[^\]]+\]:[ \t]*/;
const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const BLOCK_QUOTE = /^ {0,3}>[ \t]?/;

interface Line {
  text: string;
  /** Code keeps its characters; other lines get inline processing. */
  code: boolean;
  /** Kept in front of a list item (nesting). */
  indent?: string;
  /** A table row, already split into cells. */
  table?: boolean;
}

function markdownToText(source: string): string {
  const markdown = removeHtmlComments(source.replace(PRIVATE_MARKERS, '').replace(/\r\n?/g, '\n'));
  const references = new Set<string>();
  const out: Line[] = [];
  let fence: { char: string; length: number; indent: number } | null = null;
  let inList = false;
  let previousBlank = true;

  for (const rawLine of markdown.split('\n')) {
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(rawLine);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length) {
        fence = null;
        out.push({ text: '', code: false });
        previousBlank = true;
      } else {
        out.push({ text: stripIndent(rawLine, fence.indent), code: true });
      }
      continue;
    }

    // Block quote markers, however deeply nested, are dropped; the quoted text is read like any other.
    let line = rawLine;
    while (BLOCK_QUOTE.test(line)) line = line.replace(BLOCK_QUOTE, '');

    const opening = FENCE_OPEN.exec(line);
    if (opening && !(opening[1]![0] === '`' && opening[2]!.includes('`'))) {
      fence = { char: opening[1]![0]!, length: opening[1]!.length, indent: line.length - line.trimStart().length };
      if (!previousBlank) out.push({ text: '', code: false });
      continue;
    }

    if (line.trim() === '') {
      out.push({ text: '', code: false });
      previousBlank = true;
      continue;
    }

    // Indented code: four spaces or a tab after a blank line, outside a list.
    const previous = out.at(-1);
    if (/^(?: {4}|\t)/.test(line) && !inList && (previousBlank || previous?.code)) {
      out.push({ text: line.replace(/^(?: {4}|\t)/, ''), code: true });
      previousBlank = false;
      continue;
    }

    // After a blank line, only an indented line or another item continues a list.
    if (previousBlank && !/^[ \t]/.test(line) && !LIST_ITEM.test(line)) inList = false;
    previousBlank = false;

    if (SETEXT_UNDERLINE.test(line) && previous && !previous.code && previous.text !== '' && !inList) {
      // The line above is a heading; its underline goes.
      out.push({ text: '', code: false });
      continue;
    }
    if (THEMATIC_BREAK.test(line)) {
      out.push({ text: '', code: false });
      inList = false;
      continue;
    }

    const heading = ATX_HEADING.exec(line);
    if (heading) {
      out.push({ text: heading[1] ?? '', code: false });
      inList = false;
      continue;
    }

    const reference = REFERENCE_DEFINITION.exec(line);
    if (reference && !reference[1]!.startsWith('^')) {
      references.add(normalizeLabel(reference[1]!));
      continue;
    }
    const footnote = FOOTNOTE_DEFINITION.exec(line);
    if (footnote) {
      out.push({ text: line.slice(footnote[0].length), code: false });
      continue;
    }

    if (TABLE_DELIMITER.test(line) && line.includes('-') && line.includes('|')) {
      // The delimiter row of a table: the line above is its header row.
      if (previous && !previous.code && previous.text.includes('|')) {
        previous.text = tableRow(previous.text);
        previous.table = true;
      }
      inList = false;
      continue;
    }
    if (previous?.table && line.includes('|')) {
      out.push({ text: tableRow(line), code: false, table: true });
      continue;
    }

    const item = LIST_ITEM.exec(line);
    if (item) {
      inList = true;
      const indent = ' '.repeat(Math.min(item[1]!.replace(/\t/g, '    ').length, 12));
      const marker = /\d/.test(item[2]!) ? `${item[2]!.slice(0, -1)}.` : '-';
      const text = (item[3] ?? '').replace(TASK_BOX, '');
      out.push({ text: `${marker} ${text}`, code: false, indent });
      continue;
    }

    out.push({ text: line.trim(), code: false, indent: inList ? '  ' : '' });
  }

  const text = out.map((line) => (line.code ? line.text.trimEnd() : (line.indent ?? '') + inlineToText(line.text, references))).join('\n');
  return text.replace(/\n{3,}/g, '\n\n').trim();
}

/** A table row's cells, separated by " | " (outer pipes go). */
function tableRow(row: string): string {
  const cells = row
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/);
  return cells.map((cell) => cell.trim()).join(' | ');
}

function stripIndent(line: string, indent: number): string {
  let removed = 0;
  while (removed < indent && line[removed] === ' ') removed++;
  return line.slice(removed);
}

function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}

function removeHtmlComments(text: string): string {
  let result = '';
  let from = 0;
  for (;;) {
    const start = text.indexOf('<!--', from);
    if (start === -1) return result + text.slice(from);
    const end = text.indexOf('-->', start + 4);
    if (end === -1) return result + text.slice(from);
    result += text.slice(from, start);
    from = end + 3;
  }
}

const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'td',
  'th',
  'tr',
  'ul',
]);

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  copy: '©',
  reg: '®',
  trade: '™',
  middot: '·',
  bull: '•',
};

/** Emphasis content is at most this long; it bounds the work on text with many unmatched delimiters. */
const SPAN = 1000;
const STRONG_STAR = new RegExp(`\\*\\*(?=\\S)(.{1,${SPAN}}?)(?<=\\S)\\*\\*`, 'g');
const STRONG_UNDERSCORE = new RegExp(`(?<![\\p{L}\\p{N}_])__(?=\\S)(.{1,${SPAN}}?)(?<=\\S)__(?![\\p{L}\\p{N}_])`, 'gu');
const EM_STAR = new RegExp(`\\*(?![\\s*])(.{1,${SPAN}}?)(?<![\\s*])\\*`, 'g');
const EM_UNDERSCORE = new RegExp(`(?<![\\p{L}\\p{N}_])_(?![\\s_])(.{1,${SPAN}}?)(?<![\\s_])_(?![\\p{L}\\p{N}_])`, 'gu');
const STRIKETHROUGH = new RegExp(`~~(?=\\S)(.{1,${SPAN}}?)(?<=\\S)~~`, 'g');

// Link text may hold one level of brackets; a destination one level of parentheses, and an optional title.
const LINK_TEXT = String.raw`\[((?:[^\[\]\\]|\\.|\[[^\[\]]*\]){0,${SPAN}})\]`;
const DESTINATION = String.raw`\(\s*(?:<[^<>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?\s*\)`;
const IMAGE = new RegExp(String.raw`!${LINK_TEXT}(?:${DESTINATION}|\[[^\[\]]*\])`, 'g');
const INLINE_LINK = new RegExp(String.raw`${LINK_TEXT}${DESTINATION}`, 'g');
const REFERENCE_LINK = new RegExp(String.raw`${LINK_TEXT}\[([^\[\]]*)\]`, 'g');
const SHORTCUT_LINK = new RegExp(String.raw`${LINK_TEXT}(?![(\[:])`, 'g');

/** A line without any of these has no inline markdown. */
const INLINE_SYNTAX = /[*_`~[\]<>&\\]|https?:|www\./i;

function inlineToText(line: string, references: Set<string>): string {
  if (line === '') return '';
  if (!INLINE_SYNTAX.test(line)) return line.replace(/[ \t]+/g, ' ').trim();
  const saved: string[] = [];
  const save = (text: string) => `\uE000${saved.push(text) - 1}\uE001`;

  // Code spans first: nothing inside them is markdown.
  let text = replaceCodeSpans(line, (code) => save(code));
  // Backslash escapes: the character is literal.
  text = text.replace(/\\([!-/:-@[-`{-~])/g, (_, char: string) => save(char));
  // Autolinks are kept as written, safe from emphasis.
  text = text.replace(/<((?:https?|ftp|mailto):[^\s<>]*|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)>/gi, (_, target: string) => save(target));

  // HTML: an image gives its alt text; other tags go (block-level ones leave a space).
  text = text.replace(
    /<img\b[^<>]*>/gi,
    (tag) =>
      /\balt\s*=\s*(?:"([^"]*)"|'([^']*)')/i
        .exec(tag)
        ?.slice(1)
        .find((v) => v !== undefined) ?? '',
  );
  text = text.replace(/<\/?([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?\/?>/g, (_, name: string) => (BLOCK_TAGS.has(name.toLowerCase()) ? ' ' : ''));

  // Images give their alt text, links their text. Footnote references go.
  text = text.replace(/\[\^[^\]\s]+\]/g, '');
  for (let pass = 0; pass < 2; pass++) {
    text = text.replace(IMAGE, (_, alt: string) => alt);
    text = text.replace(INLINE_LINK, (_, label: string) => label);
    text = text.replace(REFERENCE_LINK, (whole: string, label: string, ref: string) =>
      references.has(normalizeLabel(ref === '' ? label : ref)) ? label : whole,
    );
    text = text.replace(SHORTCUT_LINK, (whole: string, label: string) => (references.has(normalizeLabel(label)) ? label : whole));
  }

  // Bare URLs are kept as written, safe from emphasis.
  text = text.replace(/\b(?:https?:\/\/|www\.)[^\s<>]+/gi, (url) => save(url));

  // Emphasis, strong emphasis and strikethrough, nested up to three deep.
  for (let pass = 0; pass < 3; pass++) {
    const before = text;
    text = text.replace(STRONG_STAR, '$1').replace(STRONG_UNDERSCORE, '$1').replace(EM_STAR, '$1').replace(EM_UNDERSCORE, '$1').replace(STRIKETHROUGH, '$1');
    if (text === before) break;
  }

  text = decodeEntities(text);
  text = text.replace(/[ \t]+/g, ' ').trim();
  // Saved pieces may hold other placeholders (a URL inside a code span does not, but an escape inside a
  // link text can): restore until none is left.
  for (let pass = 0; pass < 3 && text.includes('\uE000'); pass++) {
    text = text.replace(PLACEHOLDER, (_, index: string) => saved[Number(index)] ?? '');
  }
  return text;
}

/** CommonMark code spans: a run of n backticks up to the next run of exactly n backticks. */
export function replaceCodeSpans(text: string, replace: (code: string) => string): string {
  if (!text.includes('`')) return text;
  const runs: { start: number; length: number }[] = [];
  for (const match of text.matchAll(/`+/g)) runs.push({ start: match.index, length: match[0].length });
  // For each run, the index of the next run of the same length.
  const nextSame = new Array<number>(runs.length).fill(-1);
  const lastByLength = new Map<number, number>();
  for (let i = runs.length - 1; i >= 0; i--) {
    nextSame[i] = lastByLength.get(runs[i]!.length) ?? -1;
    lastByLength.set(runs[i]!.length, i);
  }
  let result = '';
  let from = 0;
  let i = 0;
  while (i < runs.length) {
    const open = runs[i]!;
    const closeIndex = nextSame[i]!;
    if (open.start < from || closeIndex === -1) {
      i++;
      continue;
    }
    const close = runs[closeIndex]!;
    let code = text.slice(open.start + open.length, close.start).replace(/\n/g, ' ');
    if (code.length >= 2 && code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') code = code.slice(1, -1);
    result += text.slice(from, open.start) + replace(code);
    from = close.start + close.length;
    i = closeIndex + 1;
  }
  return result + text.slice(from);
}

function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z]{2,8}));/g, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED_ENTITIES[name] ?? whole;
    const code = dec !== undefined ? Number(dec) : Number.parseInt(hex!, 16);
    const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    return valid ? String.fromCodePoint(code) : '\uFFFD';
  });
}
