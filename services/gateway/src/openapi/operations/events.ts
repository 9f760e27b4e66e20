import { publicEvents } from '@lode/contracts';
import { feedQuery } from '../../routes/events.ts';
import type { OperationGroup } from '../operation.ts';

export const eventOperations: OperationGroup = {
  tag: 'Events',
  description: "The project's events as they happen (docs/api.md, Live feed).",
  operations: [
    {
      method: 'get',
      path: '/api/v1/projects/:projectId/events',
      summary: "Follow the project's events (Server-Sent Events)",
      description:
        'Each event is an SSE message whose `id` is its feed position (send it back as Last-Event-ID to resume), `event` its type and `data` the event as JSON; a `reset` event says the position is past the retention.',
      auth: 'key',
      query: feedQuery,
      reply: publicEvents.publicEventSchema,
      replyType: 'text/event-stream',
      errors: [429],
    },
  ],
};
