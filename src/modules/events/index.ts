export { eventHeadsAfter, eventsAfter, feedPosition, findEvent, type EventRow, type FeedPosition } from './repository.js';
export { changedAttributes, presentEvent, recordEvent, recordEvents, type NewEvent } from './service.js';
export { EVENT_TYPES, type EventType } from './table.js';
export { default as eventRoutes } from './routes.js';
