export interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}
