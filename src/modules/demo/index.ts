export { seed } from './cli.js';
