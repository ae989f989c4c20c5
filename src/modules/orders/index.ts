export { insertBookingItems, insertBookingOrders, type NewBookingOrder } from './create.js';
export { presentTransaction } from './present.js';
export { setBookingItemData } from './repository.js';
export { default as orderRoutes } from './routes.js';
export { Transaction, TRANSACTION_STATUSES, type TransactionView } from './schemas.js';
export { bookingCancelled, followLedger, releaseBookingForDelete, refuseBeyondLedger, refuseNegativeNetPaid, repriceBooking, underOrderLocks } from './service.js';
export { countsAsRefund, isTransactionKind, TRANSACTION_KINDS, type TransactionKind } from './totals.js';
export { type OrdersTable, type TransactionsTable } from './table.js';
export { customerExists, findOrder, updateOrder, findTransaction, firstBookingOfOrder, insertTransaction, listTransactions, updateTransaction, type TransactionRow } from './repository.js';
