/**
 * The wink-nlp English model (about 3.5 MB of JSON, some 200 ms to load), read into one engine for topics
 * and one for sentiment on the first call of each, and the text they read.
 */
import { createRequire } from 'node:module';
import type { Model } from 'wink-eng-lite-web-model';
import type WinkFn from 'wink-nlp';
import type { WinkMethods } from 'wink-nlp';

/**
 * Sentiment and topics read at most this many characters (cut at a word boundary): a long post's opening
 * is representative, and the cost of a call stays bounded (wink reads 5,000 characters of prose in about
 * 10-40 ms, of dense punctuation in up to about 90 ms).
 */
export const MAX_ANALYZED_CHARS = 5_000;

let topicsEngine: WinkMethods | undefined;
let sentimentEngine: WinkMethods | undefined;

/**
 * Each use reads text with only the stages it needs: a document read by every stage cost about 60 µs for
 * a line of text, read for sentiment alone about 33 and for topics alone about 46, and every pushed
 * activity is read for both (about a fifth of the batch route's CPU, spent on the text reader's thread:
 * text-reader.ts). The price is a second copy of the model's tables in memory (about 9 MB).
 */
function engine(stages: Parameters<typeof WinkFn>[1]): WinkMethods {
  const require = createRequire(import.meta.url);
  const winkNLP = require('wink-nlp') as typeof WinkFn;
  const model = require('wink-eng-lite-web-model') as Model;
  return winkNLP(model, stages);
}

/** Sentences, parts of speech and entities: what topic extraction reads. */
export function nlp(): WinkMethods {
  return (topicsEngine ??= engine(['sbd', 'pos', 'ner']));
}

/** Sentences, negation and sentiment: what the sentiment score reads. */
export function sentimentNlp(): WinkMethods {
  return (sentimentEngine ??= engine(['sbd', 'negation', 'sentiment']));
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
export function forAnalysis(text: string): string {
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
