/**
 * The application shell: the header with the main navigation and the client-side routes. The
 * public page is in the first bundle; the studio, administration and operations pages load on
 * first visit (their own chunks), so the public page stays light.
 */
import { ErrorBoundary, lazy, LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { TtsPage } from './pages/speak/tts-page.js';

// One chunk per area, loaded on the first visit of one of its pages.
const studio = () => import('./pages/studio/index.js');
const admin = () => import('./pages/admin/index.js');
const operations = () => import('./pages/operations/index.js');
const StudioAccount = lazy(() => studio().then((m) => m.AccountPage));
const StudioPresets = lazy(() => studio().then((m) => m.PresetsPage));
const StudioVip = lazy(() => studio().then((m) => m.VipPage));
const SharedPreset = lazy(() => studio().then((m) => m.SharePage));
const AdminVipRequests = lazy(() => admin().then((m) => m.VipRequestsPage));
const AdminUsers = lazy(() => admin().then((m) => m.UsersPage));
const AdminReports = lazy(() => admin().then((m) => m.AbuseReportsPage));
const AdminKeys = lazy(() => admin().then((m) => m.ApiKeysPage));
const AdminHubToken = lazy(() => admin().then((m) => m.HubTokenPage));
const OpsSlo = lazy(() => operations().then((m) => m.SloPage));
const OpsUsage = lazy(() => operations().then((m) => m.UsagePage));
const OpsNodes = lazy(() => operations().then((m) => m.NodesPage));
const OpsLogs = lazy(() => operations().then((m) => m.LogsPage));
const OpsSystem = lazy(() => operations().then((m) => m.SystemPage));

/** The main areas, in the header. Keep in step with WEB_PAGES of the facade (web-app.ts). */
const AREAS = [
  ['/', 'Speak'],
  ['/studio', 'Studio'],
  ['/admin', 'Administration'],
  ['/ops', 'Operations'],
] as const;

function MainNav() {
  const { path } = useLocation();
  const current = (href: string) => (href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`));
  return (
    <nav class="main-nav" aria-label="Main">
      {AREAS.map(([href, text]) => (
        <a key={href} href={href} aria-current={current(href) ? 'page' : undefined}>
          {text}
        </a>
      ))}
    </nav>
  );
}

function NotFound() {
  return (
    <section class="card">
      <h1>Page not found</h1>
      <p>
        There is no page at this address. <a href="/">Go to the text-to-speech page.</a>
      </p>
    </section>
  );
}

export function App() {
  return (
    <LocationProvider>
      <a class="skip" href="#main">
        Skip to the content
      </a>
      <header class="top">
        <a class="home" href="/">
          <span class="brand" aria-hidden="true" />
          <span class="title">Text to speech</span>
        </a>
        <MainNav />
      </header>
      <main id="main" tabIndex={-1}>
        <ErrorBoundary>
          <Router>
            <Route path="/" component={TtsPage} />
            <Route path="/studio" component={StudioAccount} />
            <Route path="/studio/presets" component={StudioPresets} />
            <Route path="/studio/vip" component={StudioVip} />
            <Route path="/share/:token" component={SharedPreset} />
            <Route path="/admin" component={AdminVipRequests} />
            <Route path="/admin/users" component={AdminUsers} />
            <Route path="/admin/reports" component={AdminReports} />
            <Route path="/admin/keys" component={AdminKeys} />
            <Route path="/admin/hub" component={AdminHubToken} />
            <Route path="/ops" component={OpsSlo} />
            <Route path="/ops/usage" component={OpsUsage} />
            <Route path="/ops/nodes" component={OpsNodes} />
            <Route path="/ops/logs" component={OpsLogs} />
            <Route path="/ops/system" component={OpsSystem} />
            <Route default component={NotFound} />
          </Router>
        </ErrorBoundary>
      </main>
    </LocationProvider>
  );
}
