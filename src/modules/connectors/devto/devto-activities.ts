import type { ActivityPush, Translation } from '../connector-kind.ts';
import { personOf } from './devto-people.ts';
import type { DevtoArticle, DevtoComment, DevtoSettings } from './devto.schemas.ts';

/**
 * Activity IDs from DEV's own: an article by its ID, a comment by its article and its `id_code` (unique on the
 * platform; the article is named too so that the ID says where the comment is). An article read by two
 * streams (two followed tags) is one activity.
 */
export const ids = {
  article: (articleId: number) => `article:${articleId}`,
  comment: (articleId: number, idCode: string) => `comment:${articleId}:${idCode}`,
};

export function emptyTranslation(): Translation {
  return { users: [], activities: [], skipped: [] };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** A comment's words: its HTML (the API gives no Markdown for comments) as plain text. */
export function textOfHtml(html: string | null | undefined): string | null {
  if (!html) return null;
  const text = html
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<br\s*\/?>|<\/(p|div|li|h[1-6]|pre|blockquote)>/gi, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+|#39);/gi, (whole, name: string) => {
      const lower = name.toLowerCase();
      if (lower.startsWith('#x')) return codePoint(parseInt(lower.slice(2), 16)) ?? whole;
      if (lower.startsWith('#')) return codePoint(Number(lower.slice(1))) ?? whole;
      return ENTITIES[lower] ?? whole;
    })
    .replace(/[ \t\f\v\r]+/g, ' ')
    .replace(/ *\n[\s]*/g, '\n')
    .trim();
  return text || null;
}

function codePoint(value: number): string | null {
  return Number.isInteger(value) && value > 0 && value <= 0x10ffff && (value < 0xd800 || value > 0xdfff) ? String.fromCodePoint(value) : null;
}

/** The time an article was published: `published_at`, else `published_timestamp` (the crossposting time, when there is one). */
export function publishedAt(article: DevtoArticle): string | null {
  return article.published_at || article.published_timestamp || null;
}

/** Why an article is left out, or null. */
export function articleSkipReason(article: DevtoArticle): string | null {
  if (!Number.isInteger(article.id) || article.id <= 0) return 'an article without an ID';
  if (!article.user?.username) return `article ${article.id}: no author`;
  if (!publishedAt(article)) return `article ${article.id}: not published`;
  return null;
}

/** The article's activity, by its author; `subSource` is the followed tag or organization that listed it. */
export function articleActivity(article: DevtoArticle, settings: DevtoSettings, subSource: string): ActivityPush {
  return {
    id: ids.article(article.id),
    activityType: 'devto_article',
    user: personOf(article.user, settings)!,
    activityTitle: article.title || null,
    content: article.description ? { type: 'text', value: article.description } : null,
    timestamp: publishedAt(article),
    url: article.url || null,
    parentActivity: null,
    subSource,
  };
}

/**
 * The activities of an article's comments (the threaded list of GET /comments), each under the comment it
 * answers, or the article for a top-level one. A deleted comment, or one the article's author hid, has no
 * author (the API gives an empty `user`): it is skipped, and its replies are put under the nearest comment
 * above it that is kept (or the article), so that no reply waits for a parent that will never come. Answers
 * how many of the comments `counts` (the ones read for the first time, for the stream's progress).
 */
export function translateComments(
  article: DevtoArticle,
  comments: DevtoComment[],
  settings: DevtoSettings,
  subSource: string,
  into: Translation,
  counts: (comment: DevtoComment) => boolean = () => true,
): number {
  const parentOfArticle = { id: ids.article(article.id), activityType: 'devto_article' };
  let read = 0;
  const walk = (list: DevtoComment[] | null | undefined, parent: { id: string; activityType: string }) => {
    for (const comment of list ?? []) {
      if (counts(comment)) read += 1;
      const what = `comment ${comment.id_code} on article ${article.id}`;
      const person = personOf(comment.user, settings);
      if (!comment.id_code) {
        into.skipped.push(`a comment on article ${article.id} without an id_code`);
        walk(comment.children, parent);
        continue;
      }
      if (!person) {
        into.skipped.push(`${what}: deleted, or hidden by the article's author (no author given)`);
        walk(comment.children, parent);
        continue;
      }
      const words = textOfHtml(comment.body_html);
      const activity: ActivityPush = {
        id: ids.comment(article.id, comment.id_code),
        activityType: 'devto_comment',
        user: person,
        activityTitle: article.title || null,
        content: words ? { type: 'text', value: words } : null,
        timestamp: comment.created_at || null,
        url: article.url || null,
        parentActivity: parent,
        subSource,
      };
      into.activities.push(activity);
      walk(comment.children, { id: activity.id as string, activityType: 'devto_comment' });
    }
  };
  walk(comments, parentOfArticle);
  return read;
}
