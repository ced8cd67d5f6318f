// Whether a record exists, asked by the server itself: the catalogue engine checks that the project, the
// region or the parent record an operation's path names exists before it answers. A GET route of one
// record may say how to tell without a request through the router (`config.exists`): most engine
// operations name a project and a region, and a request to the server itself for each cost about a
// sixth of such an operation's time.
import type { Principal } from './auth/principal.js';

/**
 * Whether the record the route's path names exists for this principal, as the route would answer it (200
 * or 404): `ids` are the path's values in order. Undefined: only the route can tell (an id in a form its
 * validation decides). Whether the principal may call the route at all is the caller's to check, from
 * the route's access.
 */
export type ExistenceCheck = (principal: Principal, ids: readonly string[]) => Promise<boolean | undefined> | boolean | undefined;

const POSITIVE_ID = /^[1-9][0-9]{0,15}$/;

/** A positive integer id written as validation writes it back (no sign, zeros, spaces or hex), or undefined. */
export function positiveIdOf(text: string | undefined): number | undefined {
  if (text === undefined || !POSITIVE_ID.test(text)) return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : undefined;
}
