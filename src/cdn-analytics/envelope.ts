// The advanced-analytics endpoint answers errors the GraphQL way, even HTTP-level ones (no token, a
// body that is not a GraphQL request, unknown route): `{errors: [{message}]}`, so GraphQL clients can
// show them. Query errors never come here: they are HTTP 200 answers built by the executor.
import type { ErrorEnvelope } from '../platform/envelopes.js';

export const graphqlEnvelope: ErrorEnvelope = (error) => ({ errors: [{ message: error.message }] });
