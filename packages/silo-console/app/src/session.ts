import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Me, Region } from './lib/types.js';

/** The signed-in person, and the region hosts for the playground's URLs. */
export interface Session {
  me: Me;
  hosts: Record<Region, string>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in page');
  return s;
}
