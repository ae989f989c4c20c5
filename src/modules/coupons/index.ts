export { default as couponRoutes } from './routes.js';
export { applyCoupon, heldCouponDiscount } from './service.js';
