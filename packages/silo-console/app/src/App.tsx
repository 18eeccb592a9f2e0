import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api/endpoints.js';
import { ApiError, setSessionEndedHandler } from './api/client.js';
import { go, useRoute } from './hooks.js';
import { hostsFromOpenApi, regionHosts } from './lib/hosts.js';
import { SESSION_ENDED } from './lib/errors.js';
import type { Route } from './lib/routes.js';
import type { Me } from './lib/types.js';
import { SessionContext, type Session } from './session.js';
import { SignIn } from './pages/SignIn.js';
import { Silos } from './pages/Silos.js';
import { NewSilo } from './pages/NewSilo.js';
import { SiloPage } from './pages/Silo.js';
import { History } from './pages/History.js';
import { Keys } from './pages/Keys.js';
import { Webhooks } from './pages/Webhooks.js';
import { Audit } from './pages/Audit.js';
import { expiresSoon, timeLeft } from './lib/expiry.js';
import type { KeyInfo } from './lib/types.js';
import { Playground } from './pages/Playground.js';
import { Feed } from './pages/Feed.js';

const NAV: { page: Route['page']; hash: string; label: string }[] = [
  { page: 'silos', hash: '#/silos', label: 'Silos' },
  { page: 'keys', hash: '#/keys', label: 'Keys' },
  { page: 'webhooks', hash: '#/webhooks', label: 'Webhooks' },
  { page: 'audit', hash: '#/audit', label: 'Audit log' },
  { page: 'playground', hash: '#/playground', label: 'Playground' },
  { page: 'feed', hash: '#/feed', label: 'Live feed' },
];

function title(route: Route): string {
  switch (route.page) {
    case 'silos':
    case 'silo':
      return 'Silos';
    case 'new-silo':
      return 'New silo';
    case 'history':
      return 'History';
    case 'keys':
      return 'Keys';
    case 'webhooks':
      return 'Webhooks';
    case 'audit':
      return 'Audit log';
    case 'playground':
      return 'Query playground';
    case 'feed':
      return 'Live feed';
    case 'sign-in':
      return 'Sign in';
    case 'not-found':
      return 'Not found';
  }
}

/** The region hosts: as the server reports them (the sign-in answer, else its OpenAPI document), else the defaults. */
async function loadHosts(me: Me) {
  let reported = me.hosts ?? {};
  if (Object.keys(reported).length === 0) reported = await api.openapi().then(hostsFromOpenApi, () => ({}));
  return regionHosts(location.host, reported);
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'silos':
      return <Silos pageNo={route.pageNo} />;
    case 'new-silo':
      return <NewSilo />;
    case 'silo':
      return <SiloPage uuid={route.uuid} />;
    case 'history':
      return <History uuid={route.uuid} version={route.version} />;
    case 'keys':
      return <Keys />;
    case 'webhooks':
      return <Webhooks />;
    case 'audit':
      return <Audit pageNo={route.pageNo} filter={route.filter} />;
    case 'playground':
      return <Playground uuid={route.uuid} />;
    case 'feed':
      return <Feed />;
    case 'sign-in':
      go('#/silos');
      return null;
    case 'not-found':
      return (
        <>
          <h1>Not found</h1>
          <p>
            There is no page at this address. <a href="#/silos">Go to your silos</a>.
          </p>
        </>
      );
  }
}

export function App() {
  const route = useRoute();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [notice, setNotice] = useState<string>();
  const [startError, setStartError] = useState<string>();
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<string>();
  const main = useRef<HTMLElement>(null);
  // Keys that stop working within 7 days: said on every page, not only on Keys.
  const [expiring, setExpiring] = useState<KeyInfo[]>([]);
  // Where to go back to after signing in again.
  const wanted = useRef(location.hash && location.hash !== '#/sign-in' ? location.hash : '#/silos');

  const signedIn = async (me: Me) => {
    setSession({ me, hosts: await loadHosts(me) });
    setNotice(undefined);
    go(wanted.current);
  };

  useEffect(() => {
    setSessionEndedHandler(() => {
      if (location.hash !== '#/sign-in') wanted.current = location.hash || '#/silos';
      setSession(null);
      setNotice(SESSION_ENDED);
      go('#/sign-in');
    });
    // "Who is signed in?" answers 200 either way: a page load without a session logs no 401.
    api.session().then(
      (s) => {
        if (s.signed_in) return signedIn({ user: s.user, account: s.account, ...(s.hosts ? { hosts: s.hosts } : {}) });
        setSession(null);
        go('#/sign-in');
      },
      (e: unknown) => setStartError(e instanceof Error ? e.message : String(e)),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // A new page: its title, and focus on its main region so keyboard and screen reader users start there.
  // Not when they already have: effects run after paint, and a quick typist (or a password manager)
  // may be in the sign-in form's first field by then; moving focus would swallow what they type.
  useEffect(() => {
    document.title = `${title(route)} · Silo console`;
    const focused = document.activeElement;
    if (!main.current?.contains(focused) || focused === main.current) main.current?.focus({ preventScroll: true });
    scrollTo(0, 0);
  }, [route.page, session === null]);

  // Looked at again on every page change (a key made or revoked on the Keys page shows at once).
  useEffect(() => {
    if (!session) return;
    let live = true;
    api.keys().then(
      ({ keys }) => live && setExpiring(keys.filter((k) => expiresSoon(k.expires_at, Date.now()))),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [session, route.page]);

  if (startError) {
    return (
      <main id="content" class="narrow" ref={main} tabIndex={-1}>
        <h1>Silo console</h1>
        <p class="error" role="alert">
          The console could not start: {startError}
        </p>
        <button type="button" onClick={() => location.reload()}>
          Try again
        </button>
      </main>
    );
  }
  if (session === undefined) {
    return (
      <main id="content" class="narrow" ref={main} tabIndex={-1}>
        <p role="status">Loading…</p>
      </main>
    );
  }
  if (session === null) {
    return (
      <main id="content" class="narrow" ref={main} tabIndex={-1}>
        <SignIn notice={notice} onSignedIn={signedIn} />
      </main>
    );
  }

  const signOut = async () => {
    setSigningOut(true);
    setSignOutError(undefined);
    try {
      await api.signOut();
      wanted.current = '#/silos';
      setSession(null);
      setNotice('You are signed out.');
      go('#/sign-in');
    } catch (e) {
      // A 401 here means the session was already gone: the handler has taken the person to sign-in.
      if (!(e instanceof ApiError && e.status === 401)) setSignOutError(e instanceof Error ? e.message : String(e));
    } finally {
      setSigningOut(false);
    }
  };

  const current = route.page === 'silo' || route.page === 'new-silo' || route.page === 'history' ? 'silos' : route.page;
  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#content" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Silo console</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map((n) => (
              <li key={n.page}>
                <a href={n.hash} aria-current={current === n.page ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="who">
          {session.me.user} · account {session.me.account}
        </span>
        <button type="button" onClick={signOut} disabled={signingOut}>
          Sign out
        </button>
        {signOutError ? (
          <span class="error" role="alert">
            Sign-out failed: {signOutError}
          </span>
        ) : null}
      </header>
      <main id="content" ref={main} tabIndex={-1}>
        {expiring.length > 0 ? (
          <p class="notice expiry-notice" role="status">
            <strong>{expiring.length === 1 ? 'A key expires soon' : `${expiring.length} keys expire soon`}:</strong>{' '}
            {expiring.map((k, i) => (
              <span key={`${k.type}/${k.name}`}>
                {i > 0 ? '; ' : ''}
                {k.type} key “{k.name}” {timeLeft(k.expires_at, Date.now()) === 'expired' ? 'has expired' : `expires ${timeLeft(k.expires_at, Date.now())}`}
              </span>
            ))}
            . {route.page === 'keys' ? 'Create a replacement below, then revoke it.' : <a href="#/keys">Replace {expiring.length === 1 ? 'it' : 'them'} on the Keys page</a>}
          </p>
        ) : null}
        <Page route={route} />
      </main>
    </SessionContext.Provider>
  );
}
