/** The studio pages: account (guest, register, log in), presets with share links, VIP, and a shared preset with fork. */
export { AccountPage } from './account-page.js';
export { PresetsPage } from './presets-page.js';
export { SharePage } from './share-page.js';
export { VipPage } from './vip-page.js';
