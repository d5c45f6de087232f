import type { ConnectorKind } from './connector-kind.ts';
import { devtoConnector } from './devto/devto-connector.ts';
import { discordConnector } from './discord/discord-connector.ts';
import { discourseConnector } from './discourse/discourse-connector.ts';
import { githubConnector } from './github/github-connector.ts';
import { hackerNewsConnector } from './hackernews/hackernews-connector.ts';
import { redditConnector } from './reddit/reddit-connector.ts';
import { slackConnector } from './slack/slack-connector.ts';
import { stackoverflowConnector } from './stackoverflow/stackoverflow-connector.ts';

/**
 * The platforms Hearth connects to: each platform's connector (its own folder here, e.g. `github/`) is listed
 * once, in this array; the framework, the admin API, the receiver and the CLI know a kind only through it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const CONNECTOR_KINDS: ConnectorKind<any, any>[] = [
  githubConnector,
  discourseConnector,
  slackConnector,
  redditConnector,
  devtoConnector,
  hackerNewsConnector,
  discordConnector,
  stackoverflowConnector,
];
