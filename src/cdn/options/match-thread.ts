// The thread CDN rule patterns are matched in (see matcher.ts): it keeps the compiled patterns, and a
// client's slowest rules against a long path cost this thread time, not the server's event loop.
import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority, serveWorkerCalls } from '../../platform/workers.js';
import { type Matchable, matchingRules } from './pattern.js';

/** A call: the rules (in any order) and the URI; the answer is the positions of the matching rules, in the order that decides. */
export interface MatchCall {
  rules: Matchable[];
  uri: string;
}

lowerThreadPriority();
serveWorkerCalls(parentPort!, (message) => {
  const { rules, uri } = message as unknown as MatchCall;
  return matchingRules(
    rules.map((rule, position) => ({ ...rule, position })),
    uri,
  ).map((rule) => rule.position);
});
