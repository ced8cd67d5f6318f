// The tokens the console calls the API with. They live in sessionStorage: entered once per browser tab,
// gone when the tab closes, never sent anywhere but this server.
import { useEffect, useState } from 'preact/hooks';

export interface Session {
  /** API token of a client (Authorization: APIKey ...), for the public API. */
  apiKey: string;
  /** Operator token of /_edgeplane, for the operator views; optional. */
  operatorToken?: string;
  clientId?: number;
  email?: string;
}

const KEY = 'edgeplane.console.session';
const listeners = new Set<(session: Session | null) => void>();

export function loadSession(): Session | null {
  try {
    const text = sessionStorage.getItem(KEY);
    return text ? (JSON.parse(text) as Session) : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
  for (const listener of listeners) listener(session);
}

export function useSession(): Session | null {
  const [session, setSession] = useState(loadSession);
  useEffect(() => {
    listeners.add(setSession);
    return () => void listeners.delete(setSession);
  }, []);
  return session;
}
