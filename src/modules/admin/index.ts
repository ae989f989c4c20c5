export { adminPasswordSet } from './cli.js';
export { default as adminRoutes } from './routes.js';
