import type { ItemEntity, ItemSentence, ItemToken, ItsFunction, PartOfSpeech } from 'wink-nlp';
import { forAnalysis, nlp } from './language-model.ts';
import { replaceCodeSpans } from './markdown-text.ts';

const DEFAULT_TOPIC_LIMIT = 5;

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
const NON_TOPIC_ENTITIES = new Set(['DATE', 'TIME', 'DURATION', 'CARDINAL', 'ORDINAL', 'MONEY', 'PERCENT', 'URL', 'EMAIL', 'MENTION', 'EMOJI', 'EMOTICON']);

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
    const regular = lower === `${lemma}s` || lower === `${lemma}es` || (lemma.endsWith('y') && lower === `${lemma.slice(0, -1)}ies`);
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
  return value.includes('_') || /^\p{Ll}{2,}\p{Lu}\p{Ll}/u.test(value) || /^v\d/i.test(value) || (/\d/.test(value) && /^[0-9a-f]{7,40}$/.test(value));
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
    const keyWords = phrase.map((unit, index) => (proper || index === phrase.length - 1 ? unit.key : unit.text.toLowerCase()));
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
      (other) => candidate.words.every((word) => other.words.includes(word)) || (other.words.length > 1 && ` ${candidate.key} `.includes(` ${other.key} `)),
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
