/** See migration 0011: how many times each agent's bookings changed. */
export interface AgentBusyVersionsTable {
  agent_id: number;
  version: number;
}
