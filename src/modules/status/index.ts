export { default as statusRoutes } from './routes.js';
