export { default as agentRoutes } from './routes.js';
export { insertAgent, setAgentLocations, setAgentServices } from './repository.js';
