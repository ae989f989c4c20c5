export { DEFAULT_SITE_SCHEDULE, parseSchedule, PERIOD_END, PERIOD_START, SITE_SCHEDULE_KEY, weekdayName, WEEKDAYS, type Period, type Schedule, type Weekday, type Weekly } from './model.js';
export { default as scheduleRoutes } from './routes.js';
export { WeeklyInputSchema, WeeklySchema } from './schemas.js';
export { checkWeekly, type WeeklyInput } from './service.js';
export { readSiteSchedule, writeSiteSchedule } from './repository.js';
