export { bookingChanges, bookingMail, enqueueBookingMails, type BookingFacts } from './booking-mail.js';
export { outboxList } from './cli.js';
export { enqueueMail, type OutgoingMail } from './outbox.js';
export { countOutbox, listOutbox, type OutboxRow } from './repository.js';
export { mailQueue, type MailQueue } from './sender.js';
export { OUTBOX_STATUSES, type OutboxStatus } from './table.js';
