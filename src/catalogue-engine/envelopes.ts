// Error bodies of the products only the catalogue engine serves, from the error schemas the reference
// declares for them. Storage declares `{error}` on every failure. Streaming declares `{data, errors}` for
// refused input and `{error, status}` otherwise. DNS declares no error body at all: it answers `{error}`
// like its sibling Go services (storage, FastEdge).
import { errorMessageEnvelope, type ErrorEnvelope } from '../platform/envelopes.js';

export const streamingEnvelope: ErrorEnvelope = (error) => {
  if (error.fields.length > 0) {
    return { data: [], errors: error.fields.map((f) => `${[f.location, ...f.path].join('.')}: ${f.message}`) };
  }
  return { error: error.message, status: error.status };
};

export const ENGINE_SURFACES = [
  { prefix: '/dns', envelope: errorMessageEnvelope },
  { prefix: '/storage', envelope: errorMessageEnvelope },
  { prefix: '/streaming', envelope: streamingEnvelope },
];
