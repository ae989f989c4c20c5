export { default as manageRoutes } from './routes.js';
