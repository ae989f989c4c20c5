/** See migration 0013: how many times each agent's bookings changed. */
export interface AgentBusyVersionsTable {
  agent_id: number;
  version: number;
}
