// Offset pagination shared by every list: `limit` and `offset` in, `{count, results}` out, where `count`
// is always the true total over all pages (the official clients page until offset reaches count).
import { Type, type TSchema } from 'typebox';

export interface PageRequest {
  limit: number;
  offset: number;
}

export interface Page<T> {
  count: number;
  results: T[];
}

export interface PaginationLimits {
  defaultLimit?: number;
  maxLimit?: number;
}

/** Query properties `limit` and `offset`; spread into a route's querystring schema. */
export function paginationQuery({ defaultLimit = 1000, maxLimit = 1000 }: PaginationLimits = {}) {
  return {
    limit: Type.Integer({ minimum: 0, maximum: maxLimit, default: defaultLimit, description: `Page size, at most ${maxLimit}` }),
    offset: Type.Integer({ minimum: 0, default: 0, description: 'Number of items to skip' }),
  };
}

/** `{count, results}` around an item schema. */
export function PageOf<T extends TSchema>(item: T, description = 'One page of results') {
  return Type.Object({ count: Type.Integer({ minimum: 0 }), results: Type.Array(item) }, { description });
}

/** Runs a count and a page query together; both see the same filters. */
export async function paginate<T>(page: PageRequest, count: () => Promise<number>, rows: (page: PageRequest) => Promise<T[]>): Promise<Page<T>> {
  const [total, results] = await Promise.all([count(), page.limit === 0 ? Promise.resolve([]) : rows(page)]);
  return { count: total, results };
}
