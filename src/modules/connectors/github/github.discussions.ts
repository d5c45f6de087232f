import type { GitHubUserRef } from './github.people.ts';
import type { DiscussionRecord } from './github.records.ts';

/**
 * Discussions are only in GitHub's GraphQL API (https://docs.github.com/en/graphql/guides/using-the-graphql-api-for-discussions).
 * Newest activity first, so an incremental run stops at the first discussion not updated since the last one.
 */
export const DISCUSSIONS_QUERY = /* GraphQL */ `
  query HearthDiscussions($owner: String!, $name: String!, $cursor: String, $first: Int!) {
    repository(owner: $owner, name: $name) {
      discussions(first: $first, after: $cursor, orderBy: { field: UPDATED_AT, direction: DESC }) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          databaseId title body url createdAt updatedAt
          author { ...HearthActor }
          comments(first: 50) {
            totalCount
            nodes {
              databaseId body url createdAt
              author { ...HearthActor }
              replies(first: 50) { totalCount nodes { databaseId body url createdAt author { ...HearthActor } } }
            }
          }
        }
      }
    }
  }
  fragment HearthActor on Actor {
    __typename login avatarUrl url
    ... on User { databaseId }
    ... on Bot { databaseId }
  }
`;

interface Actor {
  __typename: string;
  login: string;
  avatarUrl?: string | null;
  url?: string | null;
  databaseId?: number | null;
}

interface CommentNode {
  databaseId: number;
  body?: string | null;
  url: string;
  createdAt: string;
  author?: Actor | null;
  replies?: { totalCount: number; nodes: CommentNode[] };
}

export interface DiscussionNode extends CommentNode {
  title?: string | null;
  updatedAt: string;
  comments: { totalCount: number; nodes: CommentNode[] };
}

export interface DiscussionsAnswer {
  repository: {
    discussions: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: DiscussionNode[] };
  } | null;
}

/** A GraphQL actor as the user object of REST and webhooks; a deleted account (no author) or one without an ID stays null. */
export function actorAsUser(actor: Actor | null | undefined): GitHubUserRef | null {
  if (!actor || typeof actor.databaseId !== 'number') return null;
  return { id: actor.databaseId, login: actor.login, avatar_url: actor.avatarUrl ?? null, html_url: actor.url ?? null, type: actor.__typename === 'Bot' ? 'Bot' : 'User' };
}

export function asDiscussionRecord(node: CommentNode & { title?: string | null }): DiscussionRecord {
  return { id: node.databaseId, title: node.title ?? null, body: node.body ?? null, html_url: node.url, created_at: node.createdAt, user: actorAsUser(node.author) };
}
