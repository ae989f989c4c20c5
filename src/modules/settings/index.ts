export { settingsGet, settingsSet } from './cli.js';
export { default as settingsRoutes } from './routes.js';
export { changeSettings, getSettings, getSettingsAndSchedule, initialiseSettings, parseSetting, siteOf, type SiteSettings } from './service.js';
export { readSetting, upsertSetting } from './repository.js';
