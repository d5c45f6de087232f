// The face of the topics module: what the rest of the code may use. Everything else here is private.
export { replaceActivityTopics, unlinkContactActivities } from './topic.repository.ts';
export { topicRoutes } from './topic.routes.ts';
export { createTopicService } from './topic.service.ts';
