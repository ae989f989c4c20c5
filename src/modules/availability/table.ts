/** See migrations 0013, 0014 and 0019: how many times each agent's bookings changed, the longest of them and their widest buffer. */
export interface AgentBusyVersionsTable {
  agent_id: number;
  version: number;
  /** An upper bound of end_at − start_at over the agent's bookings, in ms. */
  longest_booking_ms: number;
  /** An upper bound of buffer_before and buffer_after over the agent's bookings, in ms. */
  widest_buffer_ms: number;
}

declare module '../../db/database.js' {
  interface Database {
    agent_busy_versions: AgentBusyVersionsTable;
  }
}
