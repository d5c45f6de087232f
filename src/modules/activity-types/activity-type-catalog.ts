/**
 * The activity types every community accepts. `id` is what clients push as `activityType` and what v2
 * activities carry as `type`; `category` groups them for /api/v2/activity-categories.
 */
export interface ActivityTypeEntry {
  id: string;
  displayName: string;
  category: string;
}

const entries: [id: string, displayName: string, category: string][] = [
  ['other', 'Other', 'other'],
  // Community and events
  ['made_post_topic', 'Made a post or topic', 'content'],
  ['commented_replied', 'Commented or replied', 'conversation'],
  ['reacted', 'Reacted', 'conversation'],
  ['attended_gathering', 'Attended a gathering', 'events'],
  ['registered_for_gathering', 'Registered for a gathering', 'events'],
  ['registered_for_webinar', 'Registered for a webinar', 'events'],
  ['attended_webinar', 'Attended a webinar', 'events'],
  ['submitted_idea', 'Submitted an idea', 'product'],
  ['started_training', 'Started a training', 'learning'],
  ['completed_training', 'Completed a training', 'learning'],
  ['downloaded', 'Downloaded', 'product'],
  ['signed_up', 'Signed up', 'product'],
  ['submitted_form', 'Submitted a form', 'marketing'],
  ['opened_email', 'Opened an email', 'marketing'],
  ['clicked_email_link', 'Clicked a link in an email', 'marketing'],
  // X / Twitter
  ['tweet', 'Tweet', 'social'],
  ['retweet', 'Retweet', 'social'],
  ['tweet_reply', 'Reply on X', 'social'],
  ['tweet_mention', 'Mention on X', 'social'],
  ['followed_on_twitter', 'Followed on X', 'social'],
  // GitHub
  ['pr_comment', 'Commented on a pull request', 'code'],
  ['pr_opened', 'Opened a pull request', 'code'],
  ['pr_merged', 'Merged a pull request', 'code'],
  ['pr_review', 'Reviewed a pull request', 'code'],
  ['issue_opened', 'Opened an issue', 'code'],
  ['issue_comment', 'Commented on an issue', 'code'],
  ['issue_closed', 'Closed an issue', 'code'],
  ['commit', 'Pushed a commit', 'code'],
  ['starred_repo', 'Starred a repository', 'code'],
  ['forked_repo', 'Forked a repository', 'code'],
  ['discussion_opened', 'Opened a discussion', 'code'],
  ['discussion_comment', 'Commented on a discussion', 'code'],
  ['release_published', 'Published a release', 'code'],
  // Slack
  ['slack_message', 'Sent a Slack message', 'conversation'],
  ['slack_thread_reply', 'Replied in a Slack thread', 'conversation'],
  ['slack_reaction', 'Reacted in Slack', 'conversation'],
  ['slack_joined_channel', 'Joined a Slack channel', 'membership'],
  // Discord
  ['discord_message', 'Sent a Discord message', 'conversation'],
  ['discord_thread_reply', 'Replied in a Discord thread', 'conversation'],
  ['discord_reaction', 'Reacted in Discord', 'conversation'],
  ['discord_joined_server', 'Joined the Discord server', 'membership'],
  // Stack Overflow and the other Stack Exchange sites
  ['stackoverflow_question', 'Asked a Stack Overflow question', 'content'],
  ['stackoverflow_answer', 'Answered on Stack Overflow', 'conversation'],
  ['stackoverflow_comment', 'Commented on Stack Overflow', 'conversation'],
  ['stackoverflow_accepted_answer', 'Gave an accepted answer on Stack Overflow', 'conversation'],
  // Hacker News
  ['hackernews_story', 'Posted a Hacker News story', 'content'],
  ['hackernews_comment', 'Commented on Hacker News', 'conversation'],
  // Reddit
  ['reddit_post', 'Posted on Reddit', 'content'],
  ['reddit_comment', 'Commented on Reddit', 'conversation'],
  // DEV
  ['devto_article', 'Published a DEV article', 'content'],
  ['devto_comment', 'Commented on DEV', 'conversation'],
  // Forums
  ['forum_topic', 'Started a forum topic', 'content'],
  ['forum_reply', 'Replied in a forum', 'conversation'],
  ['forum_like', 'Liked a forum post', 'conversation'],
  ['forum_accepted_answer', 'Gave an accepted answer', 'conversation'],
  // Content and product
  ['blog_post', 'Published a blog post', 'content'],
  ['video_published', 'Published a video', 'content'],
  ['docs_feedback', 'Gave feedback on the docs', 'product'],
  ['product_signup', 'Signed up for the product', 'product'],
  ['product_login', 'Logged in to the product', 'product'],
  ['joined_community', 'Joined the community', 'membership'],
];

export const ACTIVITY_TYPE_CATALOG: readonly ActivityTypeEntry[] = entries.map(([id, displayName, category]) => ({
  id,
  displayName,
  category,
}));

/** Display names of the catalog's categories; a community's own category is shown humanized. */
const CATEGORY_NAMES: Record<string, string> = {
  code: 'Code',
  content: 'Content',
  conversation: 'Conversation',
  events: 'Events',
  learning: 'Learning',
  marketing: 'Marketing',
  membership: 'Membership',
  other: 'Other',
  product: 'Product',
  social: 'Social',
};

export function categoryDisplayName(id: string): string {
  const known = CATEGORY_NAMES[id];
  if (known) return known;
  const words = id.replace(/[_-]+/g, ' ').replace(/\s+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : id;
}

const CATALOG_NAMES = new Map(ACTIVITY_TYPE_CATALOG.map((entry) => [entry.id, entry.displayName]));

/** The catalog's name of a type; a type the catalog does not hold is shown humanized (`meetup_talk`: "Meetup talk"). */
export function catalogName(id: string): string {
  return CATALOG_NAMES.get(id) ?? categoryDisplayName(id);
}
