export { default as locationRoutes } from './routes.js';
export { insertLocation } from './repository.js';
