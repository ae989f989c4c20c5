export { bookingChanges, bookingMail, enqueueBookingMails, type BookingFacts, type BookingMailKind } from './booking-mail.js';
export { outboxList } from './cli.js';
export { enqueueMail, enqueueMails, type OutgoingMail } from './outbox.js';
export { countOutbox, listOutbox, type OutboxRow } from './repository.js';
export { mailQueue, type MailQueue } from './sender.js';
export { OUTBOX_STATUSES, type OutboxStatus } from './table.js';
