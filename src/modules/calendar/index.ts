/** iCalendar documents (RFC 5545) of bookings: what mail attachments and calendar feeds carry. */
export { bookingUid, calendarOf, type CalendarEntry, type CalendarMethod } from './ics.js';
