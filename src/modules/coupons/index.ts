export { default as couponRoutes } from './routes.js';
export { applyCoupon, heldCouponDiscount, type AppliedCoupon } from './service.js';
