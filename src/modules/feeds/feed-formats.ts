import { XMLParser } from 'fast-xml-parser';
import type { NewsItem } from '../company-updates/index.ts';

/** The kinds of feed: three careers boards' public job-board JSON, and RSS or Atom (`rss`) for news. */
export const FEED_KINDS = ['greenhouse', 'lever', 'ashby', 'rss'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];

export const isBoard = (kind: FeedKind) => kind !== 'rss';

/** An opening as a careers board lists it. */
export interface BoardOpening {
  key: string;
  jobTitle: string;
  location: string | null;
  jobDescription: string | null;
  url: string | null;
  /** When the board says it was published; null when it does not say. */
  firstSeenAt: Date | null;
}

/** The feed's content is not what its kind promises: the message says what is wrong, for the admin. */
export class FeedFormatError extends Error {}

/** The most items one fetch takes from a feed (a board of 5,000 openings is already unusual). */
export const MAX_FEED_ITEMS = 5_000;

const text = (value: unknown): string | null => {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed ? trimmed : null;
};

const date = (value: unknown): Date | null => {
  if (value === undefined || value === null || value === '') return null;
  const parsed = typeof value === 'number' ? new Date(value) : new Date(String(value));
  return Number.isNaN(parsed.getTime()) ? null : parsed;
};

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** HTML (as boards and feeds send descriptions) to plain text: tags dropped, entities decoded, spaces folded. */
export function htmlToText(html: string): string {
  const decode = (value: string) =>
    value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : ' ';
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    });
  // Boards escape their HTML inside JSON strings: decode once to get the tags, strip them, decode again.
  const tagged = /&lt;[a-z/!]/i.test(html) ? decode(html) : html;
  const stripped = tagged
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<\/(p|div|li|h[1-6]|br)\s*>|<br\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, ' ');
  return decode(stripped)
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
}

/** The first sentence of a text (at most 300 characters), for a news item's `articleSentence`. */
export function firstSentence(value: string | null): string | null {
  if (!value) return null;
  const flat = value.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  const sentence = end >= 0 ? flat.slice(0, end + 1) : flat;
  return sentence.length > 300 ? `${sentence.slice(0, 299).trimEnd()}…` : sentence || null;
}

function json(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new FeedFormatError('the answer is not JSON');
  }
}

function objects(value: unknown, what: string): Record<string, unknown>[] {
  if (!Array.isArray(value)) throw new FeedFormatError(`expected ${what}`);
  return value.slice(0, MAX_FEED_ITEMS).filter((item): item is Record<string, unknown> => item !== null && typeof item === 'object');
}

/** The openings of a careers board's answer. */
export function parseBoard(kind: Exclude<FeedKind, 'rss'>, body: Buffer): BoardOpening[] {
  const data = json(body);
  const openings: BoardOpening[] = [];
  if (kind === 'greenhouse') {
    // GET https://boards-api.greenhouse.io/v1/boards/{board}/jobs?content=true
    for (const job of objects((data as { jobs?: unknown })?.jobs, 'a Greenhouse job board: {"jobs": [...]}')) {
      const title = text(job.title);
      const id = text(job.id);
      if (!title || !id) continue;
      const content = text(job.content);
      openings.push({
        key: `greenhouse:${id}`,
        jobTitle: title,
        location: text((job.location as { name?: unknown } | undefined)?.name),
        jobDescription: content ? htmlToText(content) || null : null,
        url: text(job.absolute_url),
        firstSeenAt: date(job.first_published),
      });
    }
  } else if (kind === 'lever') {
    // GET https://api.lever.co/v0/postings/{company}?mode=json
    for (const job of objects(data, 'a Lever postings list: [...]')) {
      const title = text(job.text);
      const id = text(job.id);
      if (!title || !id) continue;
      const categories = (job.categories ?? {}) as { location?: unknown };
      openings.push({
        key: `lever:${id}`,
        jobTitle: title,
        location: text(categories.location),
        jobDescription: text(job.descriptionPlain) ?? (text(job.description) ? htmlToText(String(job.description)) : null),
        url: text(job.hostedUrl),
        firstSeenAt: date(job.createdAt),
      });
    }
  } else {
    // GET https://api.ashbyhq.com/posting-api/job-board/{board}
    for (const job of objects((data as { jobs?: unknown })?.jobs, 'an Ashby job board: {"jobs": [...]}')) {
      const title = text(job.title);
      const id = text(job.id);
      if (!title || !id || job.isListed === false) continue;
      openings.push({
        key: `ashby:${id}`,
        jobTitle: title,
        location: text(job.location),
        jobDescription: text(job.descriptionPlain) ?? (text(job.descriptionHtml) ? htmlToText(String(job.descriptionHtml)) : null),
        url: text(job.jobUrl),
        firstSeenAt: date(job.publishedAt),
      });
    }
  }
  return openings;
}

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  // Feeds are untrusted: no entity expansion beyond XML's own.
  processEntities: true,
  htmlEntities: false,
  isArray: (name) => ['item', 'entry', 'link', 'category'].includes(name),
});

/** The text of an XML node that may carry attributes (`<title type="html">…</title>`). */
function nodeText(value: unknown): string | null {
  if (value !== null && typeof value === 'object' && '#text' in value) return text((value as { '#text': unknown })['#text']);
  return text(value);
}

/** The news items of an RSS 2.0 or Atom feed. */
export function parseNewsFeed(body: Buffer): NewsItem[] {
  let data: Record<string, unknown>;
  try {
    data = xml.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new FeedFormatError('the answer is not XML');
  }
  const items: NewsItem[] = [];
  const rss = (data.rss as { channel?: { item?: unknown } } | undefined)?.channel;
  const atom = data.feed as { entry?: unknown } | undefined;
  if (rss) {
    for (const item of objects(rss.item ?? [], 'RSS items')) {
      const title = nodeText(item.title);
      const links = (item.link as unknown[] | undefined) ?? [];
      const url = links.map(nodeText).find(Boolean) ?? null;
      const published = date(nodeText(item.pubDate)) ?? date(nodeText(item['dc:date']));
      const guid = nodeText(item.guid);
      if (!title || !published) continue;
      const description = nodeText(item.description) ?? nodeText(item['content:encoded']);
      items.push({
        key: guid ?? url ?? `${published.toISOString()} ${title}`,
        title: htmlToText(title),
        category: ((item.category as unknown[] | undefined) ?? []).map(nodeText).find(Boolean) ?? null,
        articleSentence: firstSentence(description ? htmlToText(description) : null),
        url,
        publishedAt: published,
      });
    }
  } else if (atom) {
    for (const entry of objects(atom.entry ?? [], 'Atom entries')) {
      const title = nodeText(entry.title);
      const links = ((entry.link as Record<string, unknown>[] | undefined) ?? []).filter((link) => link && typeof link === 'object');
      const alternate = links.find((link) => !link['@rel'] || link['@rel'] === 'alternate') ?? links[0];
      const url = alternate ? text(alternate['@href']) : null;
      const published = date(nodeText(entry.published)) ?? date(nodeText(entry.updated));
      if (!title || !published) continue;
      const summary = nodeText(entry.summary) ?? nodeText(entry.content);
      const category = ((entry.category as Record<string, unknown>[] | undefined) ?? []).map((c) => text(c?.['@term'])).find(Boolean) ?? null;
      items.push({
        key: nodeText(entry.id) ?? url ?? `${published.toISOString()} ${title}`,
        title: htmlToText(title),
        category,
        articleSentence: firstSentence(summary ? htmlToText(summary) : null),
        url,
        publishedAt: published,
      });
    }
  } else {
    throw new FeedFormatError('expected an RSS (<rss><channel>) or Atom (<feed>) document');
  }
  return items.slice(0, MAX_FEED_ITEMS);
}
