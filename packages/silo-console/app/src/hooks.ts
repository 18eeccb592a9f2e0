import { useCallback, useEffect, useState } from 'preact/hooks';
import { parseRoute, type Route } from './lib/routes.js';

/** The current route, following the URL hash (back and forward buttons included). */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

export function go(hash: string): void {
  if (location.hash !== hash) location.hash = hash;
}

/** What an async load gives a page: the value, its error in words, and a way to load again. */
export interface Loaded<T> {
  value: T | undefined;
  error: string | undefined;
  /** A 422's messages by the field they are about (a filter's name): placed beside its control. */
  fields: Record<string, string>;
  loading: boolean;
  reload: () => void;
}

/** The per-field messages of an error, when it has them (an ApiError of a 422). */
function fieldsOf(e: unknown): Record<string, string> {
  const f = (e as { fields?: unknown } | null)?.fields;
  return f && typeof f === 'object' ? (f as Record<string, string>) : {};
}

/** Runs `load` when `deps` change (and on reload); a stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: string; fields?: Record<string, string>; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined, fields: undefined }));
    load().then(
      (value) => live && setState({ value, loading: false }),
      (e: unknown) => live && setState({ error: e instanceof Error ? e.message : String(e), fields: fieldsOf(e), loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { value: state.value, error: state.error, fields: state.fields ?? {}, loading: state.loading, reload };
}

/** Wraps an action for a button: busy while it runs, its error in words after. */
export function useAction(): {
  busy: boolean;
  error: string | undefined;
  fields: Record<string, string>;
  run: (fn: () => Promise<void>) => Promise<void>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [fields, setFields] = useState<Record<string, string>>({});
  const run = useCallback(async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    setFields({});
    try {
      await fn();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setFields(fieldsOf(e));
    } finally {
      setBusy(false);
    }
  }, []);
  const clear = useCallback(() => {
    setError(undefined);
    setFields({});
  }, []);
  return { busy, error, fields, run, clear };
}

/**
 * While `dirty`: closing or reloading the page asks first (the browser's own question), and so
 * does following a link within the console (links are `#/...`: leaving by one loses the edit).
 */
export function useUnsavedGuard(dirty: boolean, question = 'Leave this page? Your unsaved changes will be lost.'): void {
  useEffect(() => {
    if (!dirty) return;
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    const click = (e: MouseEvent) => {
      const link = e.target instanceof Element ? e.target.closest('a[href^="#"]') : null;
      if (link && !confirm(question)) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', click, true);
    return () => {
      removeEventListener('beforeunload', beforeUnload);
      document.removeEventListener('click', click, true);
    };
  }, [dirty, question]);
}

/** Focus the element `id` once the page has rendered (where a closed dialog's opener was). */
export function focusLater(id: string): void {
  requestAnimationFrame(() => document.getElementById(id)?.focus());
}
