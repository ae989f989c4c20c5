export {
  findCustomerContact,
  findIdByEmail as findCustomerIdByEmail,
  insertCustomer,
  insertCustomersWithFreeEmails,
  newCustomerRow,
} from './repository.js';
export { default as customerRoutes } from './routes.js';
export { changeCustomerColumns, recordCustomersCreated } from './service.js';
export { EMAIL_RULES as CUSTOMER_EMAIL_RULES, NAME_RULES as CUSTOMER_NAME_RULES, PHONE_RULES as CUSTOMER_PHONE_RULES } from './schemas.js';
export { emailProblem, emailTaken, nameProblem, phoneProblem } from './rules.js';
