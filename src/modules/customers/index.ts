export { findIdByEmail as findCustomerIdByEmail, insertCustomer, newCustomerRow } from './repository.js';
export { default as customerRoutes } from './routes.js';
export { emailProblem, nameProblem, phoneProblem } from './rules.js';
