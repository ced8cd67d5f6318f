// Seeding: clients and tokens are created through IAM's services; everything else goes through the
// products' own endpoints (public or /_edgeplane/<product>/...), in order, with app.inject, so seeding
// knows no product's tables. IDs are the database's, hence repeatable on an empty database; secrets are
// derived from the seed number when one is given.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { IamProduct } from '../../iam/index.js';
import { AppError, bodyField, invalid } from '../../platform/errors.js';
import type { Seed, SeedResult } from './schemas.js';

type SeededClient = SeedResult['clients'][number];

export class SeedService {
  constructor(
    private readonly iam: IamProduct,
    /** Removes clients and every row of theirs: how a refused seed takes back what it had created. */
    private readonly removeClients: (clientIds: number[]) => Promise<void>,
  ) {}

  /**
   * All or nothing: when any part is refused, the clients created so far (and all the product data
   * seeded for them) are removed before the error is reported. `operatorAuthorization` sends requests
   * that name no client; without it such requests are refused.
   */
  async apply(app: FastifyInstance, seed: Seed, operatorAuthorization: string | undefined): Promise<SeedResult> {
    const clients = new Map<string, SeededClient>();
    try {
      return await this.applyInOrder(app, seed, operatorAuthorization, clients);
    } catch (error) {
      await this.removeClients([...clients.values()].map((c) => c.clientId));
      throw error;
    }
  }

  private async applyInOrder(
    app: FastifyInstance,
    seed: Seed,
    operatorAuthorization: string | undefined,
    clients: Map<string, SeededClient>,
  ): Promise<SeedResult> {
    const result: SeedResult = { clients: [], requests: [] };
    for (const [index, client] of (seed.clients ?? []).entries()) {
      const ref = client.ref ?? `client${index + 1}`;
      if (clients.has(ref)) throw invalid([bodyField(['clients', index, 'ref'], `ref ${ref} is used twice`)]);
      const reseller = client.resellerRef ? clients.get(client.resellerRef) : undefined;
      if (client.resellerRef && !reseller)
        throw invalid([bodyField(['clients', index, 'resellerRef'], `no client with ref ${client.resellerRef} is declared before this one`)]);
      const { clientId, adminUserId } = await this.iam.accounts.createAccount({
        email: client.email,
        companyName: client.companyName,
        name: client.name,
        isReseller: client.reseller,
        resellerId: reseller?.clientId,
      });
      const seeded: SeededClient = { ref, clientId, userId: adminUserId, email: client.email, tokens: [] };
      // Known from here on, so a failure below (a token, a later request) takes this client back too.
      clients.set(ref, seeded);
      for (const token of client.tokens ?? []) {
        const issued = await this.iam.tokens.issue({
          clientId,
          userId: adminUserId,
          role: token.role ?? 'Administrators',
          name: token.name,
          kind: token.kind,
          expiresAt: token.expiresAt ? Date.parse(token.expiresAt) : null,
          fixedToken: token.token ?? (seed.seed !== undefined ? derivedSecret(seed.seed, ref, token.name) : undefined),
        });
        seeded.tokens.push({ name: token.name, id: issued.id, token: issued.token });
      }
      result.clients.push(seeded);
    }
    for (const [index, request] of (seed.requests ?? []).entries()) {
      const fill = (value: unknown) => substitute(value, clients, ['requests', index]);
      const authorization = request.as !== undefined ? tokenOf(clients, request.as, index) : operatorAuthorization;
      if (!authorization)
        throw invalid([
          bodyField(['requests', index, 'as'], 'the operator token is unknown here: set EDGEPLANE_ADMIN_TOKEN, or send the request as a seeded client'),
        ]);
      const body = request.body === undefined ? undefined : fill(request.body);
      const raw = request.contentType !== undefined && typeof body === 'string';
      const response = await app.inject({
        method: request.method,
        url: String(fill(request.path)),
        query: request.query ? (fill(request.query) as Record<string, string>) : undefined,
        headers: { authorization, ...(body === undefined ? {} : { 'content-type': request.contentType ?? 'application/json' }) },
        payload: body === undefined ? undefined : raw ? (body as string) : JSON.stringify(body),
      });
      const answer = parse(response.body);
      const ok = request.expect !== undefined ? response.statusCode === request.expect : response.statusCode < 300;
      if (!ok) {
        throw new AppError(
          'validation_failed',
          `seed request ${index} (${request.method} ${request.path}) answered ${response.statusCode}: ${response.body.slice(0, 500)}`,
          {
            fields: [bodyField(['requests', index], `answered ${response.statusCode}`, 'seed_request_failed')],
          },
        );
      }
      result.requests.push({ method: request.method, path: String(fill(request.path)), status: response.statusCode, body: answer });
    }
    return result;
  }
}

function derivedSecret(seed: number, ref: string, name: string): string {
  return `seed_${createHash('sha256').update(`${seed}:${ref}:${name}`).digest('base64url').slice(0, 40)}`;
}

function tokenOf(clients: Map<string, SeededClient>, ref: string, index: number): string {
  const client = clients.get(ref);
  if (!client) throw invalid([bodyField(['requests', index, 'as'], `no client with ref ${ref}`)]);
  if (client.tokens.length === 0) throw invalid([bodyField(['requests', index, 'as'], `client ${ref} has no token`)]);
  return `APIKey ${client.tokens[0].token}`;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9_-]*)\.(clientId|userId|token|tokens\.[^}\s]+)\s*\}\}/g;

/** Replaces {{ref.field}} in every string; a string that is only a numeric placeholder becomes a number. */
export function substitute(value: unknown, clients: Map<string, SeededClient>, where: (string | number)[]): unknown {
  if (typeof value === 'string') {
    const lookup = (ref: string, field: string): string | number => {
      const client = clients.get(ref);
      if (!client) throw invalid([bodyField(where, `placeholder refers to unknown client ${ref}`)]);
      if (field === 'clientId') return client.clientId;
      if (field === 'userId') return client.userId;
      const name = field === 'token' ? client.tokens[0]?.name : field.slice('tokens.'.length);
      const token = client.tokens.find((t) => t.name === name);
      if (!token) throw invalid([bodyField(where, `client ${ref} has no token ${name ?? ''}`.trim())]);
      return token.token;
    };
    const whole = /^\{\{\s*([A-Za-z][A-Za-z0-9_-]*)\.(clientId|userId)\s*\}\}$/.exec(value);
    if (whole) return lookup(whole[1], whole[2]);
    return value.replace(PLACEHOLDER, (_m, ref: string, field: string) => String(lookup(ref, field)));
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, clients, where));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, clients, where)]));
  return value;
}

function parse(text: string): unknown {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return text;
  }
}
