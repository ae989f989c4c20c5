/** Every write that moves an order's money or payment state holds this lock. */
export function orderLock(orderId: number): string {
  return `order:${orderId}`;
}
