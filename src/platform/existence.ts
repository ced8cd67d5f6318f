// Whether a record exists, asked by the server itself: the catalogue engine checks that the project, the
// region or the parent record an operation's path names exists before it answers. A GET route of one
// record may say how to tell without a request through the router (`config.exists`): most engine
// operations name a project and a region, and a request to the server itself for each cost about two
// thirds of such an operation's time.
import type { Caller } from './auth/caller.js';
import type { Principal } from './auth/principal.js';
import { AppError } from './errors.js';

/** Who asks: the principal the route would authenticate, and the caller its services take. */
export interface Asker {
  principal: Principal;
  caller: Caller;
}

/**
 * Whether the record the route's path names exists for this caller, as the route would answer it (a
 * success, or a 403 for a role that may not read it: the operation's own rules then decide; any other
 * refusal is no): `ids` are the path's values in order. Undefined: only the route can tell (an id in a
 * form its validation decides, a failure that is not a refusal). Whether the caller's principal may
 * call the route at all is the caller's to check, from the route's access.
 */
export type ExistenceCheck = (asker: Asker, ids: readonly string[]) => Promise<boolean | undefined> | boolean | undefined;

const POSITIVE_ID = /^[1-9][0-9]{0,15}$/;

/** A positive integer id written as validation writes it back (no sign, zeros, spaces or hex), or undefined. */
export function positiveIdOf(text: string | undefined): number | undefined {
  if (text === undefined || !POSITIVE_ID.test(text)) return undefined;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** The check of a route whose path names one positive integer id: undefined for an id in any other form. */
export function byPositiveId(text: string | undefined, check: (id: number) => ReturnType<ExistenceCheck>): ReturnType<ExistenceCheck> {
  const id = positiveIdOf(text);
  return id === undefined ? undefined : check(id);
}

/** The existence the route's own read tells, answered as the route would answer it (see ExistenceCheck). */
export async function existenceBy(read: () => Promise<unknown>): Promise<boolean | undefined> {
  try {
    await read();
    return true;
  } catch (error) {
    return error instanceof AppError ? error.status === 403 : undefined;
  }
}
