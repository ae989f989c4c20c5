/** See migrations 0013 and 0014: how many times each agent's bookings changed, and the longest of them. */
export interface AgentBusyVersionsTable {
  agent_id: number;
  version: number;
  /** An upper bound of end_at − start_at over the agent's bookings, in ms. */
  longest_booking_ms: number;
}

declare module '../../db/database.js' {
  interface Database {
    agent_busy_versions: AgentBusyVersionsTable;
  }
}
