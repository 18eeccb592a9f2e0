import { useState } from 'preact/hooks';
import { api } from '../api/endpoints.js';
import { useAction } from '../hooks.js';
import type { Me } from '../lib/types.js';
import { ErrorText } from '../components/ui.js';

/** Sign-in by console user and password; the server sets the session cookie, the page never sees it. */
export function SignIn({ notice, onSignedIn }: { notice: string | undefined; onSignedIn: (me: Me) => Promise<void> }) {
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  return (
    <>
      <h1>Sign in to the Silo console</h1>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            const me = await api.signIn(user, password);
            setPassword('');
            await onSignedIn(me);
          });
        }}
      >
        <div class="field">
          <label for="sign-in-user">User</label>
          <input
            id="sign-in-user"
            name="username"
            autocomplete="username"
            required
            value={user}
            onInput={(e) => setUser(e.currentTarget.value)}
            aria-describedby={action.error ? 'sign-in-error' : undefined}
          />
        </div>
        <div class="field">
          <label for="sign-in-password">Password</label>
          <input
            id="sign-in-password"
            name="password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            aria-describedby={action.error ? 'sign-in-error' : undefined}
          />
        </div>
        <ErrorText id="sign-in-error" message={action.error} />
        <div>
          <button type="submit" class="primary" disabled={action.busy}>
            Sign in
          </button>
        </div>
      </form>
      <p class="hint">
        The first start of <code>silo serve</code> prints a password for user <code>admin</code>; <code>silo users create</code> makes more
        users.
      </p>
    </>
  );
}
