// What app.ts needs to know of a product: where it lives, how its errors look, and its routes.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Clock } from './clock.js';
import type { Database } from './db/index.js';
import type { ErrorEnvelope } from './envelopes.js';
import type { WarmUpStep } from './warm-up.js';

export interface PlatformDeps {
  config: Config;
  db: Database;
  clock: Clock;
}

export interface Product {
  name: string;
  /** URL prefixes the product owns; errors under them, including unknown routes, use its envelope. */
  prefixes: string[];
  envelope: ErrorEnvelope;
  /** Further URL prefixes with an envelope of their own (products served only by the catalogue engine). */
  surfaces?: { prefix: string; envelope: ErrorEnvelope }[];
  /** OpenAPI tag descriptions for the product's routes. */
  tags?: { name: string; description: string }[];
  register(app: FastifyInstance): Promise<void> | void;
  /** What its routes make on first use for every later request, made once the server listens (warm-up.ts). */
  warmUp?: WarmUpStep[];
}
