export interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}

declare module '../../db/database.js' {
  interface Database {
    settings: SettingsTable;
  }
}
