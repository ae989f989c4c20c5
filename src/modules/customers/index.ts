export {
  emailLowerOf,
  findCustomerContact,
  findIdByEmail as findCustomerIdByEmail,
  insertCustomer,
  insertCustomersWithFreeEmails,
  newCustomerRow,
  setCustomerColumns,
} from './repository.js';
export { default as customerRoutes } from './routes.js';
export { emailProblem, emailTaken, nameProblem, phoneProblem } from './rules.js';
