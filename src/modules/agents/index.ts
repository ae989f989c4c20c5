export { default as agentRoutes } from './routes.js';
export { findAgent, findAgentByEmail, insertAgent, setAgentLocations, setAgentServices, type AgentRow } from './repository.js';
