/** Agents' secret calendar feeds of their bookings, and a booking's calendar file for its manage page. */
export { calendarFeedRoutes, publicFeedRoutes } from './routes.js';
export { bookingCalendar } from './service.js';
export { storedReplyFeedUrls } from './replies.js';
