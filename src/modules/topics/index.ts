// The face of the topics module: what the rest of the code uses of it. Its other files are private.
export { topicRoutes } from './topic.v2.routes.ts';
export { createTopicService } from './topic.service.ts';
export { topicTx, type TopicTxService } from './topic-tx.service.ts';
