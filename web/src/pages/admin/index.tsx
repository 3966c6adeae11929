/**
 * The administration pages: VIP requests, users and abuse reports (a studio session with the admin
 * role, or the administrator key); API keys and the hub token (the administrator key).
 */
export { VipRequestsPage } from './vip-requests-page.js';
export { UsersPage } from './users-page.js';
export { AbuseReportsPage } from './abuse-reports-page.js';
export { ApiKeysPage } from './api-keys-page.js';
export { HubTokenPage } from './hub-token-page.js';
