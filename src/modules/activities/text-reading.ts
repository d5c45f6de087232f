import { plainText, type ActivityContent } from './markdown-text.ts';
import { sentimentOf, type Sentiment } from './sentiment.ts';
import { extractTopics } from './topics.ts';

/** An activity's title and content, as pushed. */
export interface ActivityText {
  title: ActivityContent | null;
  content: ActivityContent | null;
}

/** What an activity's text says: its sentiment (null without content) and its topics. */
export interface TextReading {
  sentiment: Sentiment | null;
  topics: string[];
}

/** Reads an activity's text on the calling thread; pure, never throws. */
export function readActivityText(text: ActivityText): TextReading {
  const content = text.content ? plainText(text.content) : null;
  return { sentiment: content === null ? null : sentimentOf(content), topics: topicsOf(text.title, content) };
}

/** An activity's topics alone, on the calling thread: for the pass that adds topics to stored activities. */
export function activityTopics(text: ActivityText): string[] {
  return topicsOf(text.title, text.content ? plainText(text.content) : null);
}

function topicsOf(title: ActivityContent | null, content: string | null): string[] {
  return extractTopics(`${title ? plainText(title) : ''}\n\n${content ?? ''}`);
}
