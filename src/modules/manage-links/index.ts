/** Manage-booking links: keys derived from the server's secret, their renewal, and replies stored without them. */
export { ManageLinks, type LinkedBooking, type ManageRole } from './keys.js';
export { linkedBooking, renewManageLinks } from './repository.js';
export { storedReplyLinks } from './replies.js';
export { loadManageLinkSecret } from './secret.js';
