export { loadDetail, type BookingView } from './present.js';
export { default as bookingRoutes } from './routes.js';
export { SELF_SERVICE_STATUSES, selfServiceRefusal, type SelfServiceAction } from './self-service.js';
export { type BookingStatus } from './table.js';
export { TRANSITIONS, updateBooking } from './update.js';
export {
  agentCalendarBookings,
  anyBookingNames,
  bookingAccessByCode,
  calendarBooking,
  upcomingBookingCount,
  type CalendarBookingRow,
  type CatalogRef,
} from './repository.js';
export { bookingEventsOfOrders } from './events.js';
export { reminderTask } from './reminders.js';
