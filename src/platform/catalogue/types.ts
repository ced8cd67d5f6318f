// The shape of reference/catalogue.json: the facts of the provider's API (operations, parameters,
// bodies, responses and the schema components they use), with no prose. Written by
// scripts/reference.ts, read by the server (coverage, the catalogue engine) and by the tests.

export const CATALOGUE_FORMAT = 'edgeplane-reference-catalogue';
export const CATALOGUE_VERSION = 1;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON Schema (OpenAPI 3.1 dialect, `nullable` kept where the source uses it); `$ref`s point at `#/components/schemas/<name>`. */
export type JsonSchema = boolean | { [keyword: string]: Json };

export interface CatalogueParameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required: boolean;
  schema: JsonSchema;
  deprecated?: boolean;
  style?: string;
  explode?: boolean;
}

export interface CatalogueResponse {
  /** Schema per media type; an empty map when the response has no body. */
  content: Record<string, JsonSchema>;
  headers?: Record<string, JsonSchema>;
}

export interface CatalogueOperation {
  method: string;
  path: string;
  operationId: string;
  /** First path segment: cloud, cdn, waap, iam, dns, storage, streaming, fastedge, security. */
  product: string;
  tags: string[];
  parameters: CatalogueParameter[];
  requestBody?: { required: boolean; content: Record<string, JsonSchema> };
  /** Keyed by status code as the source spells it ("200", "4XX", "default"). */
  responses: Record<string, CatalogueResponse>;
  deprecated?: boolean;
  /** Answered without authentication. */
  public?: boolean;
}

export interface Catalogue {
  format: typeof CATALOGUE_FORMAT;
  version: number;
  source: { openapi: string; apiVersion: string; sha256?: string };
  operations: CatalogueOperation[];
  components: { schemas: Record<string, JsonSchema> };
}
