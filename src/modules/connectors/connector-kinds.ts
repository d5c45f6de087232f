import type { ConnectorKind } from './connector-kind.ts';
import { discourseConnector } from './discourse/discourse-connector.ts';
import { githubConnector } from './github/github-connector.ts';
import { slackConnector } from './slack/slack-connector.ts';

/**
 * The platforms Hearth connects to: each platform's connector (its own folder here, e.g. `github/`) is listed
 * once, in this array; the framework, the admin API, the receiver and the CLI know a kind only through it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const CONNECTOR_KINDS: ConnectorKind<any, any>[] = [githubConnector, discourseConnector, slackConnector];
