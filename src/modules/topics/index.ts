// The face of the topics module: what the rest of the code uses of it. Its other files are private.
export { makeTopics, replaceActivityTopics, topicLinks, topicsMade, topicsOf, unlinkContactActivities } from './topic.repository.ts';
export { topicRoutes } from './topic.routes.ts';
export { createTopicService } from './topic.service.ts';
