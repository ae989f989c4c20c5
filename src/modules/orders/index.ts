export { insertBookingItems, insertBookingOrders, type NewBookingOrder } from './create.js';
export { presentTransaction } from './present.js';
export { setBookingItemData } from './repository.js';
export { default as orderRoutes } from './routes.js';
export { Transaction, TRANSACTION_STATUSES, type TransactionView } from './schemas.js';
export { closeOrderOfDeletedBooking, repriceBooking, syncPaymentStatus, underOrderLocks } from './service.js';
export { type OrdersTable, type TransactionsTable } from './table.js';
export { customerExists, findOrder, updateOrder, findTransaction, firstBookingOfOrder, insertTransaction, listTransactions, updateTransaction, type TransactionRow } from './repository.js';
