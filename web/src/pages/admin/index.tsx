/** The administration pages: VIP requests, users, abuse reports (studio admin role or admin key); API keys and the hub token (admin key). */
const todo = (name: string) => () => <section class="card"><h1>{name}</h1><p>Coming in this change.</p></section>;
export const VipRequestsPage = todo('VIP requests');
export const UsersPage = todo('Users');
export const AbuseReportsPage = todo('Abuse reports');
export const ApiKeysPage = todo('API keys');
export const HubTokenPage = todo('Hub token');
