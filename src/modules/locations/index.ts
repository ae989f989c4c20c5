export { default as locationRoutes } from './routes.js';
export { findLocationByName, insertLocation } from './repository.js';
