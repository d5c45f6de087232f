import type { GitHubUserRef } from './github-people.ts';
import type { DiscussionRecord } from './github-records.ts';

/** Who wrote a discussion, a comment or a reply: a person or a bot (a fragment every query below ends with). */
const ACTOR_FRAGMENT = `  fragment HearthActor on Actor {
    __typename login avatarUrl url
    ... on User { databaseId }
    ... on Bot { databaseId }
  }
`;

/** A comment with its first 50 replies, as the first two queries read it. */
const COMMENT_FRAGMENT = `  fragment HearthComment on DiscussionComment {
    id databaseId body url createdAt
    author { ...HearthActor }
    replies(first: 50) {
      totalCount
      pageInfo { hasNextPage endCursor }
      nodes { databaseId body url createdAt author { ...HearthActor } }
    }
  }
`;

/**
 * Discussions are only in GitHub's GraphQL API (https://docs.github.com/en/graphql/guides/using-the-graphql-api-for-discussions).
 * Newest activity first, so an incremental run stops at the first discussion not updated since the last one.
 * A page brings each discussion's first 50 comments and their first 50 replies; a longer discussion's other
 * comments, and a longer thread's other replies, are read with the two queries after it, by cursor.
 */
export const DISCUSSIONS_QUERY = /* GraphQL */ `
  query HearthDiscussions($owner: String!, $name: String!, $cursor: String, $first: Int!) {
    repository(owner: $owner, name: $name) {
      discussions(first: $first, after: $cursor, orderBy: { field: UPDATED_AT, direction: DESC }) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          databaseId number title body url createdAt updatedAt
          author { ...HearthActor }
          comments(first: 50) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { ...HearthComment }
          }
        }
      }
    }
  }
${COMMENT_FRAGMENT}${ACTOR_FRAGMENT}`;

/** The comments of one discussion after the first page (https://docs.github.com/en/graphql/reference/objects#discussion). */
export const DISCUSSION_COMMENTS_QUERY = /* GraphQL */ `
  query HearthDiscussionComments($owner: String!, $name: String!, $number: Int!, $cursor: String, $first: Int!) {
    repository(owner: $owner, name: $name) {
      discussion(number: $number) {
        comments(first: $first, after: $cursor) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes { ...HearthComment }
        }
      }
    }
  }
${COMMENT_FRAGMENT}${ACTOR_FRAGMENT}`;

/** The replies to one comment after the first page (https://docs.github.com/en/graphql/reference/objects#discussioncomment). */
export const COMMENT_REPLIES_QUERY = /* GraphQL */ `
  query HearthCommentReplies($id: ID!, $cursor: String, $first: Int!) {
    node(id: $id) {
      ... on DiscussionComment {
        replies(first: $first, after: $cursor) {
          totalCount
          pageInfo { hasNextPage endCursor }
          nodes { databaseId body url createdAt author { ...HearthActor } }
        }
      }
    }
  }
${ACTOR_FRAGMENT}`;

interface Actor {
  __typename: string;
  login: string;
  avatarUrl?: string | null;
  url?: string | null;
  databaseId?: number | null;
}

interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

export interface Connection<T> {
  totalCount: number;
  /** Absent in answers to queries of earlier versions: then nothing more is asked. */
  pageInfo?: PageInfo;
  nodes: T[];
}

export interface ReplyNode {
  databaseId: number;
  body?: string | null;
  url: string;
  createdAt: string;
  author?: Actor | null;
}

export interface CommentNode extends ReplyNode {
  /** The comment's node ID, to ask for its further replies. */
  id?: string;
  replies?: Connection<ReplyNode>;
}

export interface DiscussionNode extends ReplyNode {
  number?: number;
  title?: string | null;
  updatedAt: string;
  comments: Connection<CommentNode>;
}

export interface DiscussionsAnswer {
  repository: { discussions: Connection<DiscussionNode> & { pageInfo: PageInfo } } | null;
}

export interface DiscussionCommentsAnswer {
  repository: { discussion: { comments: Connection<CommentNode> } | null } | null;
}

export interface CommentRepliesAnswer {
  node: { replies?: Connection<ReplyNode> } | null;
}

/** The cursor of the page after a connection's nodes, or null when they were the last. */
export function moreAfter(connection: Connection<unknown> | null | undefined): string | null {
  return connection?.pageInfo?.hasNextPage && connection.pageInfo.endCursor ? connection.pageInfo.endCursor : null;
}

/** A GraphQL actor as the user object of REST and webhooks; a deleted account (no author) or one without an ID stays null. */
export function actorAsUser(actor: Actor | null | undefined): GitHubUserRef | null {
  if (!actor || typeof actor.databaseId !== 'number') return null;
  return {
    id: actor.databaseId,
    login: actor.login,
    avatar_url: actor.avatarUrl ?? null,
    html_url: actor.url ?? null,
    type: actor.__typename === 'Bot' ? 'Bot' : 'User',
  };
}

export function asDiscussionRecord(node: ReplyNode & { title?: string | null }): DiscussionRecord {
  return {
    id: node.databaseId,
    title: node.title ?? null,
    body: node.body ?? null,
    html_url: node.url,
    created_at: node.createdAt,
    user: actorAsUser(node.author),
  };
}
