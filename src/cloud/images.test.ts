// Images through HTTP: the public catalogue of each region and its filters, private images made from a
// volume or downloaded from a URL (tasks, quotas), their updates and deletes, and the checks instances
// and volumes meet when they boot from an image.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_IMAGES } from './images/catalogue.js';
import { cloudFixture, UBUNTU, type CloudFixture } from '../../tests/cloud/fixture.js';
import { expectConforms } from '../../tests/support/conformance.js';

let f: CloudFixture;
const images = (region = 76) => `/cloud/v1/images/${f.project}/${region}`;
const slug = (s: string) => PUBLIC_IMAGES.find((i) => i.slug === s)!.id;
const names = (res: { json(): any }) => res.json().results.map((i: { name: string }) => i.name);

beforeAll(async () => {
  f = await cloudFixture();
});
afterAll(async () => f.close());

describe('the public catalogue', () => {
  it('offers VM images where VMs run, GPU images where GPUs are, bare-metal images where bare metal is', async () => {
    const lux = await f.req('GET', images(76));
    expectConforms('GET', '/cloud/v1/images/{project_id}/{region_id}', lux);
    expect(names(lux)).toEqual(expect.arrayContaining(['ubuntu-22.04-x64', 'windows-server-2022', 'ubuntu-22.04-x64-nvidia-550', 'debian-12-x64-baremetal']));
    expect(
      lux
        .json()
        .results.every(
          (i: { visibility: string; project_id: number; region_id: number }) => i.visibility === 'public' && i.project_id === f.project && i.region_id === 76,
        ),
    ).toBe(true);
    const frankfurt = names(await f.req('GET', images(38)));
    expect(frankfurt).toContain('ubuntu-22.04-x64');
    expect(frankfurt.some((n: string) => n.includes('nvidia') || n.includes('baremetal'))).toBe(false);
    expect(names(await f.req('GET', images(14)))).toEqual(['ubuntu-22.04-x64-baremetal', 'debian-12-x64-baremetal']);
  });

  it('filters by architecture, name, distribution, version and visibility, and shows prices when asked', async () => {
    expect(names(await f.req('GET', `${images()}?architecture=aarch64`))).toEqual(['ubuntu-24.04-arm64']);
    expect(names(await f.req('GET', `${images()}?name=WINDOWS`))).toEqual(['windows-server-2022']);
    expect(names(await f.req('GET', `${images()}?os_distro=Debian&os_version=12`))).toEqual(['debian-12-x64', 'debian-12-x64-baremetal']);
    expect((await f.req('GET', `${images()}?visibility=private`)).json().count).toBe(0);
    expect((await f.req('GET', `${images()}?private=1`)).json().count).toBe(0);
    const page = await f.req('GET', `${images()}?limit=2&offset=1`);
    expect(page.json().results).toHaveLength(2);
    expect(page.json().count).toBeGreaterThan(2);
    const priced = await f.req('GET', `${images()}/${slug('windows-server-2022')}?include_prices=true`);
    expectConforms('GET', '/cloud/v1/images/{project_id}/{region_id}/{image_id}', priced);
    expect(priced.json()).toMatchObject({ price_status: 'show', currency_code: 'EUR', price_per_hour: expect.any(Number) });
    expect((await f.req('GET', `${images()}/${UBUNTU}`)).json()).toMatchObject({
      id: UBUNTU,
      price_status: null,
      min_disk: 5,
      os_distro: 'ubuntu',
      status: 'active',
    });
    expect((await f.req('GET', `${images(14)}/${UBUNTU}`)).statusCode).toBe(404);
  });

  it('refuses to change or delete a public image', async () => {
    expect((await f.req('PATCH', `${images()}/${UBUNTU}`, { name: 'mine-now' })).statusCode).toBe(400);
    const del = await f.req('DELETE', `${images()}/${UBUNTU}`);
    expect(del.statusCode).toBe(400);
    expect(del.json().message).toMatch(/public image/);
  });
});

describe('private images', () => {
  it('are made from a bootable volume (a task), updated and deleted', async () => {
    const volume = (
      await f.finished(await f.req('POST', `/cloud/v1/volumes/${f.project}/76`, { source: 'image', name: 'boot-vol', size: 12, image_id: UBUNTU }))
    ).created_resources.volumes[0];
    const created = await f.req('POST', images(), { name: 'golden', volume_id: volume, tags: { team: 'ops' } });
    expectConforms('POST', '/cloud/v1/images/{project_id}/{region_id}', created);
    const task = await f.finished(created);
    expect(task).toMatchObject({ task_type: 'create_image', created_resources: { images: [created.json().id] } });
    const got = await f.req('GET', `${images()}/${created.json().id}`);
    expectConforms('GET', '/cloud/v1/images/{project_id}/{region_id}/{image_id}', got);
    expect(got.json()).toMatchObject({
      name: 'golden',
      visibility: 'private',
      status: 'active',
      min_disk: 12,
      size: 12 * 1024 ** 3,
      os_distro: 'ubuntu',
      os_version: '22.04',
      tags_v2: [{ key: 'team', value: 'ops', read_only: false }],
    });
    expect(names(await f.req('GET', `${images()}?visibility=private`))).toEqual(['golden']);
    const patched = await f.req('PATCH', `${images()}/${created.json().id}`, { name: 'golden-2', ssh_key: 'required', tags: { team: null, tier: 'gold' } });
    expectConforms('PATCH', '/cloud/v1/images/{project_id}/{region_id}/{image_id}', patched);
    expect(patched.json()).toMatchObject({ name: 'golden-2', ssh_key: 'required', tags_v2: [{ key: 'tier', value: 'gold' }] });
    // An image that requires a key boots only with one.
    const keyless = await f.req('POST', `/cloud/v2/instances/${f.project}/76`, {
      name: 'keyless',
      flavor: 'g1-standard-1-2',
      volumes: [{ source: 'image', image_id: created.json().id, size: 12 }],
      interfaces: [{ type: 'external' }],
    });
    expect(keyless.statusCode).toBe(400);
    expect(keyless.json().message).toMatch(/requires an SSH key/);
    const deleted = await f.req('DELETE', `${images()}/${created.json().id}`);
    expectConforms('DELETE', '/cloud/v1/images/{project_id}/{region_id}/{image_id}', deleted);
    expect((await f.finished(deleted)).task_type).toBe('delete_image');
    expect((await f.req('GET', `${images()}/${created.json().id}`)).statusCode).toBe(404);
  });

  it('refuses a volume that is not bootable or does not exist', async () => {
    const blank = (await f.finished(await f.req('POST', `/cloud/v1/volumes/${f.project}/76`, { source: 'new-volume', name: 'blank', size: 5 })))
      .created_resources.volumes[0];
    const res = await f.req('POST', images(), { name: 'nope', volume_id: blank });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ loc: ['body', 'volume_id'], msg: expect.stringMatching(/not bootable/), type: 'value_error' }]);
    expect((await f.req('POST', images(), { name: 'nope', volume_id: '00000000-0000-4000-8000-000000000001' })).statusCode).toBe(400);
  });

  it('are downloaded from a URL (a task; the image is saving, then active with a size)', async () => {
    await f.setMode('manual', 'download_image');
    const started = await f.req('POST', `/cloud/v1/downloadimage/${f.project}/76`, {
      name: 'alpine',
      url: 'https://images.example.org/alpine-3.20.qcow2',
      os_distro: 'alpine',
      os_version: '3.20',
      cow_format: true,
    });
    expectConforms('POST', '/cloud/v1/downloadimage/{project_id}/{region_id}', started);
    const id = started.json().id;
    expect((await f.req('GET', `${images()}/${id}`)).json()).toMatchObject({ status: 'queued', size: 0 });
    await f.t.request('POST', '/_edgeplane/tasks/advance', { headers: f.t.operator, body: { task_id: started.json().tasks[0], to: 'step' } });
    expect((await f.req('GET', `${images()}/${id}`)).json().status).toBe('saving');
    await f.t.request('POST', '/_edgeplane/tasks/advance', { headers: f.t.operator, body: { task_id: started.json().tasks[0], to: 'end' } });
    await f.setMode('instant');
    const image = (await f.req('GET', `${images()}/${id}`)).json();
    expect(image).toMatchObject({ status: 'active', disk_format: 'qcow2', os_distro: 'alpine', visibility: 'private' });
    expect(image.size).toBeGreaterThan(0);
    // A cow_format image stays while volumes made from it exist.
    const volume = await f.finished(
      await f.req('POST', `/cloud/v1/volumes/${f.project}/76`, { source: 'image', name: 'from-alpine', size: image.min_disk, image_id: id }),
    );
    expect((await f.req('DELETE', `${images()}/${id}`)).statusCode).toBe(409);
    await f.finished(await f.req('DELETE', `/cloud/v1/volumes/${f.project}/76/${volume.created_resources.volumes[0]}`));
    await f.finished(await f.req('DELETE', `${images()}/${id}`));
    expect((await f.req('POST', `/cloud/v1/downloadimage/${f.project}/76`, { name: 'ftp-one', url: 'ftp://images.example.org/x.qcow2' })).statusCode).toBe(400);
    expect((await f.req('POST', `/cloud/v1/downloadimage/${f.project}/76`, { name: 'no-url', url: 'not a url' })).statusCode).toBe(400);
  });

  it('count against the image quotas: over them the task fails and nothing is left', async () => {
    const quotas = (await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/76`)).json();
    expectConforms('GET', '/cloud/v2/regional_quotas/{client_id}/{region_id}', await f.req('GET', `/cloud/v2/regional_quotas/${f.me.clientId}/76`));
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { image_count_limit: quotas.image_count_usage } });
    const started = await f.req('POST', `/cloud/v1/downloadimage/${f.project}/76`, { name: 'too-many', url: 'https://images.example.org/x.raw' });
    const task = await f.task(started.json().tasks[0]);
    expect(task).toMatchObject({ state: 'ERROR', created_resources: null });
    expect(task.error).toMatch(/Quota exceeded in region 76 \(images: requested 1/);
    expect((await f.req('GET', `${images()}/${started.json().id}`)).statusCode).toBe(404);
    await f.t.request('PUT', `/_edgeplane/cloud/quotas/${f.me.clientId}`, { headers: f.t.operator, body: { image_count_limit: 50 } });
  });

  it("are the project's own: another client gets 404", async () => {
    const stranger = await f.t.account();
    expect((await f.req('GET', images(), undefined, stranger)).statusCode).toBe(404);
    expect(
      (await f.req('POST', `/cloud/v1/downloadimage/${f.project}/76`, { name: 'theirs', url: 'https://images.example.org/x.raw' }, stranger)).statusCode,
    ).toBe(404);
  });
});

describe('booting from an image', () => {
  const vm = (body: Record<string, unknown>, region = 76) =>
    f.req('POST', `/cloud/v2/instances/${f.project}/${region}`, { name: 'booted', flavor: 'g1-standard-1-2', interfaces: [{ type: 'external' }], ...body });
  const refusal = async (body: Record<string, unknown>, field: (string | number)[], message: RegExp, region = 76) => {
    const res = await vm(body, region);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      code: 400,
      exception_class: 'BadRequestError',
      errors: [{ loc: ['body', ...field], msg: expect.stringMatching(message) }],
    });
  };

  it("needs an image of the region, big enough a disk and flavor, of the flavor's architecture", async () => {
    await refusal(
      { volumes: [{ source: 'image', image_id: '00000000-0000-4000-8000-0000000000aa', size: 10 }] },
      ['volumes', 0, 'image_id'],
      /does not exist in region 76/,
    );
    await refusal({ volumes: [{ source: 'image', image_id: slug('rocky-9-x64'), size: 8 }] }, ['volumes', 0, 'size'], /at least 10 GiB, got 8/);
    await refusal({ volumes: [{ source: 'image', image_id: slug('windows-server-2022'), size: 60 }] }, ['volumes', 0, 'image_id'], /4096 MiB of RAM/);
    await refusal({ volumes: [{ source: 'image', image_id: slug('ubuntu-24.04-arm64'), size: 10 }] }, ['volumes', 0, 'image_id'], /aarch64/);
    await refusal({ volumes: [{ source: 'image', image_id: slug('debian-12-x64-baremetal'), size: 10 }] }, ['volumes', 0, 'image_id'], /bare-metal/);
    await refusal(
      { volumes: [{ source: 'image', image_id: slug('ubuntu-22.04-x64-nvidia'), size: 50 }], flavor: 'g1-standard-16-32' },
      ['volumes', 0, 'image_id'],
      /GPU image/,
    );
    await refusal(
      { volumes: [{ source: 'image', image_id: slug('windows-server-2022'), size: 60 }], flavor: 'g1-standard-2-8', username: 'admin' },
      ['username'],
      /Windows/,
    );
  });

  it("boots what fits: an Arm image on an Arm flavor, a default size of the image's minimum", async () => {
    const arm = await f.finished(await vm({ flavor: 'a1-standard-2-4', volumes: [{ source: 'image', image_id: slug('ubuntu-24.04-arm64') }] }));
    const id = arm.created_resources.instances[0];
    const volumes = (await f.req('GET', `/cloud/v1/volumes/${f.project}/76?instance_id=${id}`)).json();
    expect(volumes.results).toMatchObject([{ size: 5, bootable: true, is_root_volume: true, volume_image_metadata: { image_id: slug('ubuntu-24.04-arm64') } }]);
  });

  it('makes volumes from an image only when they are big enough', async () => {
    const small = await f.req('POST', `/cloud/v1/volumes/${f.project}/76`, { source: 'image', name: 'small', size: 20, image_id: slug('windows-server-2022') });
    expect(small.statusCode).toBe(400);
    expect(small.json().errors[0]).toMatchObject({ loc: ['body', 'size'], msg: expect.stringMatching(/at least 50 GiB/) });
    expect((await f.req('POST', `/cloud/v1/volumes/${f.project}/76`, { source: 'image', name: 'no-image', size: 20 })).statusCode).toBe(400);
  });
});
