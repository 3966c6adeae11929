/** The operations pages for SRE teams: SLOs, usage and cost, nodes and queue, live logs, system. */
const todo = (name: string) => () => <section class="card"><h1>{name}</h1><p>Coming in this change.</p></section>;
export const SloPage = todo('Service level objectives');
export const UsagePage = todo('Usage and cost');
export const NodesPage = todo('Nodes and queue');
export const LogsPage = todo('Live logs');
export const SystemPage = todo('System');
