export { default as paymentRoutes } from './routes.js';
