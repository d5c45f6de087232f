/**
 * Activity text: markdown to plain text, sentiment and topics. Pure functions; none of them throws.
 *
 * The wink-nlp English model (about 3.5 MB of JSON, some 200 ms to load) is loaded on the first call of
 * `sentimentOf` or `extractTopics` and shared by every later call. `plainText` does not need it.
 */
import { createRequire } from 'node:module';
import type { Model } from 'wink-eng-lite-web-model';
import type WinkFn from 'wink-nlp';
import type { ItemEntity, ItemSentence, ItemToken, ItsFunction, PartOfSpeech, WinkMethods } from 'wink-nlp';

export interface ActivityContent {
  type: 'text' | 'markdown';
  value: string;
}

export type Sentiment = 'positive' | 'negative' | 'neutral';

/**
 * wink-nlp scores a document from -1 (very negative) to +1 (very positive); text with no sentiment-bearing
 * word scores exactly 0. A score of at least +0.1 is positive, at most -0.1 negative, anything between is
 * neutral: the dead band keeps faint signals ("Could you add support for dark mode?" scores +0.01) neutral.
 */
export const SENTIMENT_THRESHOLD = 0.1;

/**
 * Sentiment and topics read at most this many characters (cut at a word boundary): a long post's opening
 * is representative, and the cost of a call stays bounded (wink reads 5,000 characters of prose in about
 * 10-40 ms, of dense punctuation in up to about 90 ms).
 */
export const MAX_ANALYZED_CHARS = 5_000;

const DEFAULT_TOPIC_LIMIT = 5;

// ---------------------------------------------------------------------------------------------------------
// The language model: loaded once, lazily, shared.

let engine: WinkMethods | undefined;

function nlp(): WinkMethods {
  if (engine === undefined) {
    const require = createRequire(import.meta.url);
    const winkNLP = require('wink-nlp') as typeof WinkFn;
    const model = require('wink-eng-lite-web-model') as Model;
    // Everything but custom entities, which Hearth does not define.
    engine = winkNLP(model, ['sbd', 'negation', 'sentiment', 'pos', 'ner']);
  }
  return engine;
}

// ---------------------------------------------------------------------------------------------------------
// Plain text

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

  const text = out
    .map((line) => (line.code ? line.text.trimEnd() : (line.indent ?? '') + inlineToText(line.text, references)))
    .join('\n');
  return text.replace(/\n{3,}/g, '\n\n').trim();
}

/** A table row's cells, separated by " | " (outer pipes go). */
function tableRow(row: string): string {
  const cells = row.trim().replace(/^\|/, '').replace(/(?<!\\)\|$/, '').split(/(?<!\\)\|/);
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
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'details', 'div', 'dl', 'dt', 'figcaption', 'figure',
  'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section',
  'summary', 'table', 'td', 'th', 'tr', 'ul',
]);

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', ndash: '–', mdash: '—', hellip: '…',
  lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', copy: '©', reg: '®', trade: '™', middot: '·', bull: '•',
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
  text = text.replace(/<((?:https?|ftp|mailto):[^\s<>]*|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)>/gi, (_, target: string) =>
    save(target),
  );

  // HTML: an image gives its alt text; other tags go (block-level ones leave a space).
  text = text.replace(/<img\b[^<>]*>/gi, (tag) => /\balt\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(tag)?.slice(1).find((v) => v !== undefined) ?? '');
  text = text.replace(/<\/?([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?\/?>/g, (_, name: string) =>
    BLOCK_TAGS.has(name.toLowerCase()) ? ' ' : '',
  );

  // Images give their alt text, links their text. Footnote references go.
  text = text.replace(/\[\^[^\]\s]+\]/g, '');
  for (let pass = 0; pass < 2; pass++) {
    text = text.replace(IMAGE, (_, alt: string) => alt);
    text = text.replace(INLINE_LINK, (_, label: string) => label);
    text = text.replace(REFERENCE_LINK, (whole: string, label: string, ref: string) =>
      references.has(normalizeLabel(ref === '' ? label : ref)) ? label : whole,
    );
    text = text.replace(SHORTCUT_LINK, (whole: string, label: string) =>
      references.has(normalizeLabel(label)) ? label : whole,
    );
  }

  // Bare URLs are kept as written, safe from emphasis.
  text = text.replace(/\b(?:https?:\/\/|www\.)[^\s<>]+/gi, (url) => save(url));

  // Emphasis, strong emphasis and strikethrough, nested up to three deep.
  for (let pass = 0; pass < 3; pass++) {
    const before = text;
    text = text
      .replace(STRONG_STAR, '$1')
      .replace(STRONG_UNDERSCORE, '$1')
      .replace(EM_STAR, '$1')
      .replace(EM_UNDERSCORE, '$1')
      .replace(STRIKETHROUGH, '$1');
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
function replaceCodeSpans(text: string, replace: (code: string) => string): string {
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

// ---------------------------------------------------------------------------------------------------------
// Sentiment

/** The sentiment of plain text (pass `plainText(content)`); empty text is neutral. */
export function sentimentOf(text: string): Sentiment {
  try {
    if (typeof text !== 'string') return 'neutral';
    const sample = forAnalysis(text);
    if (!/[\p{L}\p{Extended_Pictographic}]|[:;]-?[()DPp]/u.test(sample)) return 'neutral';
    const winkNlp = nlp();
    const score = winkNlp.readDoc(sample).out(winkNlp.its.sentiment) as number;
    if (!Number.isFinite(score)) return 'neutral';
    if (score >= SENTIMENT_THRESHOLD) return 'positive';
    if (score <= -SENTIMENT_THRESHOLD) return 'negative';
    return 'neutral';
  } catch {
    return 'neutral';
  }
}

/** No word is longer; longer runs of non-space characters (long URLs, base64, minified code) are dropped. */
const MAX_WORD_CHARS = 64;
const OVERLONG_WORD = new RegExp(`\\S{${MAX_WORD_CHARS + 1},}`, 'g');

/**
 * The text the model reads: cut to MAX_ANALYZED_CHARS at a word boundary, without overlong words (the
 * model's tokenizer slows down sharply on them) or runs of spaces, and with a full stop after every line
 * that ends without punctuation: a heading or a list item is a sentence of its own, not the start of the
 * next line's.
 */
function forAnalysis(text: string): string {
  let sample = text.trim();
  if (sample.length > MAX_ANALYZED_CHARS) {
    sample = sample.slice(0, MAX_ANALYZED_CHARS);
    const space = sample.search(/\s\S*$/);
    if (space > MAX_ANALYZED_CHARS / 2) sample = sample.slice(0, space);
  }
  return sample
    .replace(OVERLONG_WORD, ' ')
    .replace(/[ \t\f\v\u00a0]{2,}/g, ' ')
    .replace(/([\p{L}\p{N}]) ?(?=\n)/gu, '$1.')
    .trim();
}

// ---------------------------------------------------------------------------------------------------------
// Topics

/**
 * Words that are nouns but never a topic of a community post: greetings, thanks, review shorthand,
 * vague nouns and time words.
 */
const NOT_TOPICS = new Set(
  `
  thanks thank thx ty hi hello hey hiya greetings cheers regards folks guys everyone everybody anyone anybody
  someone somebody people person team all lgtm ptal wip nit nits imo imho fyi afaik btw tia tl dr tldr eta asap
  ack ok okay yes yeah yep nope lol haha pls plz please sorry congrats kudos welcome
  thing things stuff something anything everything nothing way ways lot lots bit bits kind sort type types
  question questions answer answers help idea ideas problem problems issue issues point points case cases
  example examples part parts side fact reason reasons matter end start beginning use usage work job jobs
  time times day days week weeks month months year years today tomorrow yesterday tonight morning evening
  afternoon night weekend minute minutes hour hours second seconds moment moments while now
  update updates change changes comment comments reply replies post posts message messages thread threads
  link links note notes detail details info information version versions look looks
  mr mrs ms sir madam dear pr prs
`
    .trim()
    .split(/\s+/),
);

const SUBJECT_PRONOUNS = new Set(['it', 'he', 'she', 'this', 'that', 'which', 'who', 'what']);

/** Entity types whose tokens are never topics. */
const NON_TOPIC_ENTITIES = new Set([
  'DATE', 'TIME', 'DURATION', 'CARDINAL', 'ORDINAL', 'MONEY', 'PERCENT', 'URL', 'EMAIL', 'MENTION', 'EMOJI',
  'EMOTICON',
]);

/** Technology names that wink splits into several tokens and that are topics nonetheless. */
const TECH_NAME = /^(?:C\+\+|C#|F#|\.NET|ASP\.NET|[A-Za-z][A-Za-z0-9]*\.(?:js|JS|Js|NET|io))$/;

type UnitKind = 'proper' | 'noun' | 'break';

interface Unit {
  kind: UnitKind;
  /** The first word of a sentence: its capital says nothing. */
  opener?: boolean;
  /** As written (proper) or lowercased (noun). */
  text: string;
  /** Lowercased and, for a common noun's head, singular. */
  key: string;
  sentence: number;
  /** From a hashtag: a topic on its own, never part of a phrase. */
  alone?: boolean;
}

interface Candidate {
  key: string;
  words: string[];
  /** Written forms of proper occurrences, with votes (half a vote for a sentence opener). */
  properForms: Map<string, number>;
  /** The lowercase form, with its votes: shown unless a proper form has more. */
  common: string;
  commonVotes: number;
  /** Weight of one occurrence: longer phrases and proper nouns weigh more. */
  weight: number;
  occurrences: number;
  score: number;
  first: number;
}

/** Single-word tags of capitalized sentence openers ("Great", "Python"), cached across calls. */
const openerTags = new Map<string, PartOfSpeech>();
const OPENER_CACHE_LIMIT = 10_000;

/**
 * Keywords of a text for topics, most relevant first (at most `limit`, default 5).
 *
 * Candidates are runs of nouns (up to three, "connection pool") and runs of proper nouns and acronyms (up to
 * three, "Visual Studio Code"), split where the kind changes ("PostgreSQL connection pool" gives
 * "PostgreSQL" and "connection pool"), plus hashtag words. Common nouns are lowercased and a phrase's last
 * word made singular; proper nouns and acronyms keep their spelling (an acronym's plural "APIs" becomes
 * "API"). Removed first: URLs, email addresses, @mentions, Slack markup and emoji codes, code (fenced
 * blocks, `spans`, snake_case, camelCase, dotted names, calls, paths, versions, hashes), numbers, dates and
 * times, stop words, greetings and vague nouns, words under three letters (two-letter acronyms stay).
 * Text that is mostly capitals is read as shouting: its words are not taken for acronyms. A capitalized
 * sentence opener counts as the word does on its own ("Great" is dropped, "Docker" becomes "docker"); a
 * plural-looking noun followed by a determiner, number or pronoun, or after "it"/"this"/…, is taken for a
 * verb ("ingress returns 404").
 *
 * Relevance: each occurrence scores its weight: 1, +0.5 per extra word of a phrase, ×1.5 for a proper noun,
 * acronym or hashtag. A candidate that also occurs inside longer candidates gets half its weight for each
 * of their occurrences ("connection pool" inside "connection pool leak"). Ties go to the earlier first
 * occurrence. Skipped while choosing: a candidate whose words all belong to one already chosen
 * ("controller" after "ingress controller"), one that contains a chosen phrase ("connection pool leak"
 * after "connection pool"), and a second spelling of one topic. The most frequent spelling is shown (a
 * proper spelling wins ties; a sentence opener's capital counts half).
 */
export function extractTopics(text: string, limit: number = DEFAULT_TOPIC_LIMIT): string[] {
  try {
    const max = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : DEFAULT_TOPIC_LIMIT;
    if (typeof text !== 'string' || max === 0) return [];
    const prepared = prepareForTopics(forAnalysis(text));
    if (!/\p{L}/u.test(prepared)) return [];
    return rankTopics(topicUnits(prepared), max);
  } catch {
    return [];
  }
}

/** Removes what is never a topic before wink reads the text; removed spans become a phrase break (";"). */
function prepareForTopics(text: string): string {
  const lines: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(?:`{3,}|~{3,})/.test(line)) {
      fenced = !fenced;
      lines.push(' ; ');
    } else lines.push(fenced ? ' ; ' : line);
  }
  let prepared = replaceCodeSpans(lines.join('\n'), () => ' ; ');
  prepared = prepared
    // Slack: <https://x|label> keeps its label; <@U123>, <#C123|general>, <!here> and bare <url> go.
    .replace(/<(?:https?|mailto):[^\s|<>]*\|([^<>]*)>/gi, ' $1 ')
    .replace(/<[@#!][^<>\s]*>|<(?:https?|mailto):[^\s<>]*>/gi, ' ; ')
    .replace(/:[a-z0-9_+-]+:/gi, ' ')
    .replace(/\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>"']+/gi, ' ; ')
    .replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, ' ; ')
    .replace(/(^|[^\w@])@[\w-][\w.-]*/g, '$1 ; ')
    // Issue and pull request references: #123, owner/repo#123, GH-123.
    .replace(/(?:[\w.-]+\/[\w.-]+)?#\d+\b|\bGH-\d+\b/g, ' ; ');
  return prepared;
}

function topicUnits(text: string): Unit[] {
  const winkNlp = nlp();
  const its = winkNlp.its;
  const doc = winkNlp.readDoc(text);
  const tokens = doc.tokens();
  const values = tokens.out(its.value) as string[];
  const count = values.length;
  const tags = tokens.out(its.pos) as PartOfSpeech[];
  const types = tokens.out(its.type) as string[];
  const stop = tokens.out(its.stopWordFlag) as unknown as boolean[];
  const spaces = tokens.out(its.precedingSpaces) as string[];

  const skip = new Uint8Array(count);
  doc.entities().each((entity: ItemEntity) => {
    if (!NON_TOPIC_ENTITIES.has(entity.out(its.type) as string)) return;
    entity.tokens().each((token: ItemToken) => {
      skip[token.index()] = 1;
    });
  });
  const sentenceOf = new Int32Array(count);
  const opens = new Uint8Array(count);
  doc.sentences().each((sentence: ItemSentence, index: number) => {
    let first = true;
    sentence.tokens().each((token: ItemToken) => {
      const i = token.index();
      sentenceOf[i] = index;
      if (first && types[i] === 'word') {
        opens[i] = 1;
        first = false;
      }
    });
  });

  // Shouting: most words in capitals. Then capitals say nothing about acronyms.
  let words = 0;
  let capitals = 0;
  for (let i = 0; i < count; i++) {
    if (types[i] !== 'word' || !/\p{L}/u.test(values[i]!)) continue;
    words++;
    if (values[i]!.length >= 2 && values[i] === values[i]!.toUpperCase() && values[i] !== values[i]!.toLowerCase()) {
      capitals++;
    }
  }
  const shouting = words >= 4 && capitals / words > 0.5;

  const units: Unit[] = [];
  const brk = (i: number) => units.push({ kind: 'break', text: '', key: '', sentence: sentenceOf[i]! });

  // Group tokens into written words: tokens with no space between them ("Node.js", "foo_bar", "pool.").
  let i = 0;
  while (i < count) {
    let end = i + 1;
    while (end < count && spaces[end] === '') end++;
    // Leading and trailing punctuation is not part of the word.
    let from = i;
    let to = end;
    while (from < to && types[from] === 'punctuation') from++;
    while (to > from && types[to - 1] === 'punctuation') to--;
    if (from > i || to === from) brk(i);
    if (to === from) {
      // Only punctuation.
    } else if (to - from === 1) {
      units.push(unitOf(from));
    } else {
      const written = values.slice(from, to).join('');
      if (TECH_NAME.test(written)) {
        units.push({ kind: 'proper', text: written, key: written.toLowerCase(), sentence: sentenceOf[from]! });
      } else if (values.slice(from + 1, to).every((value) => /^(?:['’]\w*|n['’]t)$/i.test(value))) {
        // A contraction or possessive: the word itself counts, the ending breaks.
        units.push(unitOf(from));
        brk(from);
      } else if (isHyphenated(from, to)) {
        units.push(hyphenated(from, to));
      } else {
        // Code, a path, a version, a file or domain name: never a topic.
        brk(from);
      }
    }
    if (to < end) brk(end - 1);
    i = end;
  }
  return units;

  function isHyphenated(from: number, to: number): boolean {
    if ((to - from) % 2 === 0) return false;
    for (let k = from; k < to; k++) {
      const expectWord = (k - from) % 2 === 0;
      if (expectWord ? types[k] !== 'word' || !/^\p{L}[\p{L}\p{N}]*$/u.test(values[k]!) : values[k] !== '-') {
        return false;
      }
    }
    return true;
  }

  function hyphenated(from: number, to: number): Unit {
    const written = values.slice(from, to).join('');
    const last = tags[to - 1];
    const sentence = sentenceOf[from]!;
    if (last !== 'NOUN' && last !== 'PROPN') return { kind: 'break', text: '', key: '', sentence };
    if (written.length < 3 || NOT_TOPICS.has(written.toLowerCase())) return { kind: 'break', text: '', key: '', sentence };
    const capitalized = /\p{Lu}/u.test(written) && !shouting && !(opens[from] && /^\p{Lu}\p{Ll}*(?:-\p{Ll}+)+$/u.test(written));
    return capitalized
      ? { kind: 'proper', text: written, key: written.toLowerCase(), sentence }
      : { kind: 'noun', text: written.toLowerCase(), key: written.toLowerCase(), sentence };
  }

  function unitOf(k: number): Unit {
    const sentence = sentenceOf[k]!;
    const none: Unit = { kind: 'break', text: '', key: '', sentence };
    let value = values[k]!;
    const type = types[k];
    let alone = false;
    if (type === 'hashtag') {
      value = value.replace(/^#+/, '');
      if (!/^\p{L}[\p{L}\p{N}_-]*$/u.test(value) || value.includes('_')) return none;
      alone = true;
    } else if (type !== 'word' || skip[k] || stop[k]) {
      return none;
    }
    const lower = value.toLowerCase();
    if (!/\p{L}/u.test(value) || NOT_TOPICS.has(lower)) return none;
    // wink keeps some contractions whole ("I'm"); possessives it splits off.
    if (/['’]/.test(value)) return none;
    if (looksLikeCode(value)) return none;

    const acronym = !shouting && value.length >= 2 && /^\p{Lu}[\p{Lu}\p{N}]*s?$/u.test(value) && /\p{Lu}.*\p{Lu}|^\p{Lu}\p{N}/u.test(value);
    let tag = tags[k];
    if (alone) tag = /\p{Lu}/u.test(value) && !shouting ? 'PROPN' : 'NOUN';
    else if (acronym) tag = 'PROPN';
    else if (shouting && tag === 'PROPN') tag = 'NOUN';

    // A capitalized sentence opener is tagged as the word is tagged on its own: "Great" is an adjective,
    // "Python" a noun, "Kubernetes" (unknown to the model) stays a proper noun.
    if (tag === 'PROPN' && opens[k] && !acronym && !alone && /^\p{Lu}\p{Ll}+$/u.test(value) && !doc.isOOV(lower)) {
      tag = openerTag(lower);
      if (tag === 'PROPN') tag = 'NOUN';
      else if (tag === 'NOUN' && lower.endsWith('ing')) return none;
    }

    if (tag === 'PROPN') {
      if (value.length < 2) return none;
      const written = /^\p{Lu}{2,}s$/u.test(value) ? value.slice(0, -1) : value; // APIs -> API
      return { kind: 'proper', text: written, key: written.toLowerCase(), sentence, alone, opener: opens[k] === 1 };
    }
    if (tag === 'NOUN') {
      if (lower.length < 3) return none;
      const singular = alone ? lower : singularOf(lower, k);
      if (singular !== lower && looksLikeVerb(k)) return none;
      return { kind: 'noun', text: lower, key: singular, sentence, alone };
    }
    return none;
  }

  /**
   * A word ending in -s that the tagger calls a plural noun is often a verb in the third person, as in
   * headlines and terse reports: "ingress returns 404", "it fails the check". Followed by a determiner, a
   * number or a pronoun, or preceded by a subject pronoun, it is taken for a verb.
   */
  function looksLikeVerb(k: number): boolean {
    const next = k + 1 < count ? tags[k + 1] : undefined;
    if (next === 'DET' || next === 'NUM' || next === 'PRON' || (k + 1 < count && types[k + 1] === 'number')) {
      return true;
    }
    return k > 0 && SUBJECT_PRONOUNS.has(values[k - 1]!.toLowerCase());
  }

  function singularOf(lower: string, k: number): string {
    // The typings declare lemma with the model's addons as a third parameter; wink passes them itself.
    const lemma = (tokens.itemAt(k).out(its.lemma as unknown as ItsFunction<string>) as string).toLowerCase();
    if (lemma === lower) return lower;
    const regular =
      lower === `${lemma}s` || lower === `${lemma}es` || (lemma.endsWith('y') && lower === `${lemma.slice(0, -1)}ies`);
    return regular ? lemma : lower;
  }
}

function openerTag(lower: string): PartOfSpeech {
  const cached = openerTags.get(lower);
  if (cached !== undefined) return cached;
  const winkNlp = nlp();
  const tag = (winkNlp.readDoc(lower).tokens().itemAt(0)?.out(winkNlp.its.pos) as PartOfSpeech | undefined) ?? 'X';
  if (openerTags.size >= OPENER_CACHE_LIMIT) openerTags.clear();
  openerTags.set(lower, tag);
  return tag;
}

/** snake_case, camelCase (two or more lowercase letters, then a capital: useEffect, not iPhone or macOS),
 *  versions (v1, v2beta1), commit hashes. */
function looksLikeCode(value: string): boolean {
  return (
    value.includes('_') ||
    /^\p{Ll}{2,}\p{Lu}\p{Ll}/u.test(value) ||
    /^v\d/i.test(value) ||
    (/\d/.test(value) && /^[0-9a-f]{7,40}$/.test(value))
  );
}

const MAX_PHRASE_WORDS = 3;

function rankTopics(units: Unit[], limit: number): string[] {
  const candidates = new Map<string, Candidate>();
  let order = 0;

  const add = (run: Unit[]) => {
    // Head-final phrases: split long runs from the right into phrases of at most three words.
    for (let end = run.length; end > 0; end -= MAX_PHRASE_WORDS) {
      const phrase = run.slice(Math.max(0, end - MAX_PHRASE_WORDS), end);
      record(phrase);
    }
  };
  const record = (phrase: Unit[]) => {
    const proper = phrase[0]!.kind === 'proper';
    const keyWords = phrase.map((unit, index) =>
      proper || index === phrase.length - 1 ? unit.key : unit.text.toLowerCase(),
    );
    const key = keyWords.join(' ');
    const written = phrase.map((unit) => unit.text).join(' ');
    let candidate = candidates.get(key);
    if (!candidate) {
      candidate = {
        key,
        words: key.split(' '),
        properForms: new Map(),
        common: proper ? written.toLowerCase() : keyWords.join(' '),
        commonVotes: 0,
        weight: (1 + 0.5 * (phrase.length - 1)) * (proper || phrase[0]!.alone ? 1.5 : 1),
        occurrences: 0,
        score: 0,
        first: order,
      };
      candidates.set(key, candidate);
    }
    order++;
    if (proper) {
      const vote = phrase[0]!.opener ? 0.5 : 1;
      candidate.properForms.set(written, (candidate.properForms.get(written) ?? 0) + vote);
    } else {
      candidate.commonVotes += 1;
    }
    candidate.occurrences++;
    candidate.score += candidate.weight;
  };

  let run: Unit[] = [];
  for (const unit of units) {
    const previous = run.at(-1);
    const joins =
      previous !== undefined &&
      unit.kind === previous.kind &&
      unit.sentence === previous.sentence &&
      !unit.alone &&
      !previous.alone &&
      // Names in capitals and lowercase chain ("Visual Studio Code"); acronyms stand alone ("GKE", "TLS").
      (unit.kind === 'noun' || (/\p{Ll}/u.test(unit.text) && /\p{Ll}/u.test(previous.text)));
    if (!joins && run.length > 0) {
      add(run);
      run = [];
    }
    if (unit.kind !== 'break') run.push(unit);
  }
  if (run.length > 0) add(run);

  // A candidate that also occurs inside longer ones is half mentioned there: "connection pool" in
  // "connection pool leak".
  for (const longer of candidates.values()) {
    for (let length = 1; length < longer.words.length; length++) {
      for (let start = 0; start + length <= longer.words.length; start++) {
        const part = candidates.get(longer.words.slice(start, start + length).join(' '));
        if (part) part.score += 0.5 * longer.occurrences * part.weight;
      }
    }
  }

  const ranked = [...candidates.values()].sort((a, b) => b.score - a.score || a.first - b.first);
  const chosen: Candidate[] = [];
  const shown = new Set<string>();
  for (const candidate of ranked) {
    if (chosen.length >= limit) break;
    const covered = chosen.some(
      (other) =>
        candidate.words.every((word) => other.words.includes(word)) ||
        (other.words.length > 1 && ` ${candidate.key} `.includes(` ${other.key} `)),
    );
    if (covered) continue;
    const display = displayOf(candidate);
    if (shown.has(display.toLowerCase())) continue;
    shown.add(display.toLowerCase());
    chosen.push(candidate);
  }
  return chosen.map(displayOf);
}

function displayOf(candidate: Candidate): string {
  let best = candidate.common;
  let bestVotes = candidate.commonVotes;
  for (const [form, votes] of candidate.properForms) {
    if (votes >= bestVotes) {
      best = form;
      bestVotes = votes;
    }
  }
  return best;
}
