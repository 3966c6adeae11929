/** The studio pages: account (guest, register, log in), presets, VIP, and a shared preset. */
const todo = (name: string) => () => <section class="card"><h1>{name}</h1><p>Coming in this change.</p></section>;
export const AccountPage = todo('Studio');
export const PresetsPage = todo('Presets');
export const VipPage = todo('VIP');
export const SharePage = todo('Shared preset');
