export { default as agentRoutes } from './routes.js';
export { findAgentByEmail, insertAgent, setAgentLocations, setAgentServices } from './repository.js';
