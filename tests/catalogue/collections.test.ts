// Every collection the catalogue engine serves remembers: create -> read -> list (found, true count) ->
// update -> read shows it -> delete -> read is 404. Cloud creates and deletes go through their tasks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resource } from '../../src/catalogue-engine/infer.js';
import type { CatalogueOperation } from '../../src/platform/catalogue/index.js';
import { createTestApp, engineName, type TestApp } from '../support/app.js';
import { World } from '../support/catalogue-world.js';

let t: TestApp;
let world: World;
beforeAll(async () => {
  t = await createTestApp();
  world = new World(t, await t.account());
  await world.setup();
}, 60_000);
afterAll(async () => t?.close());

interface Collection {
  resource: Resource;
  create: CatalogueOperation;
  read: CatalogueOperation;
  list: CatalogueOperation;
  update?: CatalogueOperation;
  remove: CatalogueOperation;
}

function collections(): Collection[] {
  const served = new Set(t.catalogue.served().map((e) => `${e.method} ${e.path}`));
  const byCollection = new Map<string, Partial<Collection>>();
  for (const op of world.catalogue.operations) {
    if (!served.has(`${op.method} ${op.path}`)) continue;
    const plan = world.plan(op);
    if (!plan.resource || !plan.resource.creatable) continue;
    const entry = byCollection.get(plan.resource.collection) ?? { resource: plan.resource };
    byCollection.set(plan.resource.collection, entry);
    if (plan.kind === 'create' && (!entry.create || op.method === 'POST')) entry.create = op;
    if (plan.kind === 'read') entry.read ??= op;
    if (plan.kind === 'list') entry.list ??= op;
    if (plan.kind === 'merge' || plan.kind === 'replace') entry.update ??= op;
    if (plan.kind === 'delete') entry.remove ??= op;
  }
  return [...byCollection.values()].filter((c): c is Collection => !!(c.create && c.read && c.list && c.remove));
}

/** The items and total of a list answer, whatever its envelope. */
function itemsOf(body: any, itemsField: string | undefined, countField: string | undefined): { items: any[]; count: number | undefined } {
  if (Array.isArray(body)) return { items: body, count: undefined };
  return { items: body?.[itemsField ?? 'results'] ?? [], count: countField ? body?.[countField] : undefined };
}

describe(`every engine collection remembers (${engineName})`, () => {
  it('create, read, list with a true count, update, delete, then 404', async () => {
    const all = collections();
    const failures: string[] = [];
    for (const c of all) {
      const where = c.resource.collection;
      try {
        // The read's path first: its parents are made now, not between the two lists.
        const readTemplate = await world.url(c.read, 'read');
        const listUrl = await world.url(c.list, 'list');
        const before = itemsOf((await world.request('GET', listUrl)).json(), world.plan(c.list).list?.itemsField, world.plan(c.list).list?.countField);
        const made = await world.create(c.resource, `roundtrip-${where}`);
        if (!made) throw new Error(`create failed: ${world.problems.at(-1)}`);
        const key = made.key.map(encodeURIComponent).join('/');
        const readUrl = readTemplate.split('/').slice(0, -c.resource.keyParams).join('/') + `/${key}`;
        const read = await world.request('GET', readUrl);
        if (read.statusCode !== 200) throw new Error(`read ${readUrl} -> ${read.statusCode} ${read.body.slice(0, 200)}`);
        const after = itemsOf((await world.request('GET', listUrl)).json(), world.plan(c.list).list?.itemsField, world.plan(c.list).list?.countField);
        const keyField = c.resource.keyFields[0];
        // (Some list items do not carry their key: streaming playlists; then the count tells.)
        const keyed = after.items.some((i) => keyField in i);
        if (keyed && !after.items.some((i) => String(i[keyField]) === made.key[0])) throw new Error(`list does not show ${made.key[0]}`);
        if (after.count !== undefined && after.count !== (before.count ?? before.items.length) + 1) throw new Error(`count ${before.count} -> ${after.count}`);
        if (c.update) {
          const generated = world.body(c.update, `update-${where}`);
          // The update's own path (another version's, maybe) with the read's values.
          const values = readUrl.split('/').filter((_, i) => c.read.path.split('/')[i]?.startsWith('{'));
          let i = 0;
          const updateUrl = c.update.path.replace(/\{[^}]+\}/g, () => values[i++] ?? '');
          const updated = await world.request(c.update.method, updateUrl, generated.body, generated.contentType);
          if (updated.statusCode >= 300) throw new Error(`update -> ${updated.statusCode} ${updated.body.slice(0, 200)}`);
        }
        const removed = await world.request('DELETE', readUrl);
        if (removed.statusCode >= 300) throw new Error(`delete -> ${removed.statusCode} ${removed.body.slice(0, 200)}`);
        const gone = await world.request('GET', readUrl);
        if (gone.statusCode !== 404) throw new Error(`read after delete -> ${gone.statusCode}`);
      } catch (error) {
        failures.push(`${where}: ${(error as Error).message}`);
      }
    }
    console.log(`round trips: ${all.length} collections, ${failures.length} failed`);
    expect(all.length).toBeGreaterThan(40);
    expect(failures).toEqual([]);
  }, 240_000);
});
