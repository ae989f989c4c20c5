/** Manage-booking links: each booking's secret key, the agent's and customer's links made from it, and their renewal. */
export { manageKey, manageLinks, newAccessKey } from './keys.js';
export { renewAccessKeys } from './repository.js';
