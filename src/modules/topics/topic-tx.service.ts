// What other modules do with topics inside their own work: each method takes the caller's executor (its
// transaction, or the database), or builds a statement for the caller's batch, so a caller composes it into
// its own transaction with no extra query or round trip. The repositories behind it stay private.
import { makeTopics, replaceActivityTopics, topicLinks, topicsMade, topicsOf, unlinkContactActivities } from './topic.repository.ts';

export const topicTx = { makeTopics, replaceActivityTopics, topicLinks, topicsMade, topicsOf, unlinkContactActivities };
export type TopicTxService = typeof topicTx;
