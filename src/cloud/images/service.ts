// Images: the provider's public catalogue of the region, and the project's private images, made from a
// bootable volume or downloaded from a URL (both tasks). Instances and volumes boot from an image that
// exists in their region and fits them (images/fit.ts).
import { randomUUID } from 'node:crypto';
import { Static } from 'typebox';
import { AppError, notFound } from '../../platform/errors.js';
import { badInput, badRequest, bodyField } from '../common/errors.js';
import { pageOf, tagMatcher } from '../common/filters.js';
import { patchTags, tagList, zonedTime } from '../common/format.js';
import type { Operations } from '../common/operations.js';
import type { Caller } from '../../platform/auth/caller.js';
import { RegionalRecords, type TaskIds } from '../common/regional-records.js';
import { attrsOf, newRow, ResourceStore, type ResourceRow, type Scope } from '../common/resource-store.js';
import type { RegionDefinition } from '../regions/catalogue.js';
import { offeredIn, PUBLIC_IMAGES, type PublicImage } from './catalogue.js';
import type { BootImage } from './fit.js';
import type { ImageFromVolumeBody, ImageListQuery, ImageSchema, ImageUpdateBody, ImageUploadBody } from './schemas.js';

type Image = Static<typeof ImageSchema>;

const GIB = 1024 ** 3;
/** When the provider's catalogue was published (public images show it as their creation time). */
const CATALOGUE_DATE = Date.parse('2024-01-15T00:00:00Z');

export interface ImageAttrs {
  architecture: 'x86_64' | 'aarch64';
  os_type: 'linux' | 'windows';
  os_distro: string;
  os_version: string;
  min_disk: number;
  min_ram: number;
  disk_format: string;
  hw_firmware_type: 'bios' | 'uefi' | null;
  hw_machine_type: 'i440' | 'q35' | null;
  is_baremetal: boolean;
  ssh_key: 'allow' | 'deny' | 'required';
  cow_format: boolean;
  tags: Record<string, string>;
  /** Where it comes from: a volume of the project, or a URL. */
  volume_id: string | null;
  url: string | null;
}

/** What a volume records of the image it was made from. */
interface FromImage {
  image_id?: string | null;
  bootable?: boolean;
}

export class ImageService {
  private readonly records: RegionalRecords;

  constructor(private readonly ops: Operations) {
    this.records = new RegionalRecords(ops, 'image', 'Image');
  }

  async list(caller: Caller, projectId: number, regionId: number, query: Static<typeof ImageListQuery>) {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const region = this.ops.regions.definition(regionId);
    const privateOnly = query.private !== undefined || query.visibility === 'private';
    const publicOnly = query.visibility === 'public' || query.visibility === 'shared';
    const publics =
      privateOnly || query.visibility === 'shared' ? [] : PUBLIC_IMAGES.filter((i) => offeredIn(i, region)).map((i) => this.presentPublic(i, scope));
    const privates = publicOnly ? [] : await Promise.all((await this.ops.resources.all('image', scope)).map((r) => this.present(r)));
    const tags = tagMatcher(query);
    const text = (value: string, wanted: string | undefined) => wanted === undefined || value.toLowerCase() === wanted.toLowerCase();
    const matches = [...publics, ...privates].filter(
      (i) =>
        (query.architecture === undefined || i.architecture === query.architecture) &&
        (query.name === undefined || i.name.toLowerCase().includes(query.name.toLowerCase())) &&
        text(i.os_distro, query.os_distro) &&
        text(i.os_version, query.os_version) &&
        tags(Object.fromEntries(i.tags_v2.map((t) => [t.key, t.value]))),
    );
    const page = pageOf(matches, query);
    return { count: page.count, results: page.results.map((i) => withPrices(i, query.include_prices === true)) };
  }

  async get(caller: Caller, projectId: number, regionId: number, id: string, includePrices = false): Promise<Image> {
    const scope = await this.ops.readable(caller, projectId, regionId);
    const pub = this.publicIn(id, this.ops.regions.definition(regionId));
    const image = pub ? this.presentPublic(pub, scope) : await this.present(await this.records.row(scope, id));
    return withPrices(image, includePrices);
  }

  async update(caller: Caller, projectId: number, regionId: number, id: string, body: Static<typeof ImageUpdateBody>): Promise<Image> {
    this.refusePublic(id, 'changed');
    return this.records.updateAttrs<ImageAttrs, Image>(
      caller,
      projectId,
      regionId,
      id,
      body.name,
      (attrs) => {
        if (body.hw_firmware_type !== undefined) attrs.hw_firmware_type = body.hw_firmware_type;
        if (body.hw_machine_type !== undefined) attrs.hw_machine_type = body.hw_machine_type;
        if (body.is_baremetal !== undefined && body.is_baremetal !== null) attrs.is_baremetal = body.is_baremetal;
        if (body.os_type !== undefined) attrs.os_type = body.os_type;
        if (body.ssh_key !== undefined) attrs.ssh_key = body.ssh_key;
        attrs.tags = patchTags(attrs.tags, body.tags);
      },
      (r) => this.present(r),
    );
  }

  async createFromVolume(caller: Caller, projectId: number, regionId: number, body: Static<typeof ImageFromVolumeBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const volume = await this.ops.resources.get('volume', scope, body.volume_id);
    if (!volume) throw badInput([bodyField(['volume_id'], `volume ${body.volume_id} does not exist in project ${projectId}, region ${regionId}`)]);
    if (!volume.ready || volume.task_id)
      throw new AppError('conflict', `Volume ${body.volume_id} is busy (status ${volume.status}); wait for its task to finish`);
    const from = attrsOf<FromImage>(volume);
    if (!from.bootable) throw badInput([bodyField(['volume_id'], `volume ${body.volume_id} is not bootable; images are made from bootable volumes`)]);
    const source = from.image_id ? await this.bootInfo(scope, from.image_id) : undefined;
    const attrs = this.attrs(body, {
      os_distro: source?.os_distro ?? 'unknown',
      os_version: source?.os_version ?? 'unknown',
      min_disk: volume.size_gb,
      disk_format: 'raw',
      volume_id: volume.id,
      url: null,
      cow_format: false,
    });
    return this.submit(caller, scope, 'create_image', body.name, attrs, volume.size_gb);
  }

  async upload(caller: Caller, projectId: number, regionId: number, body: Static<typeof ImageUploadBody>): Promise<TaskIds> {
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const url = new URL(body.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badInput([bodyField(['url'], 'must be an http or https URL')]);
    const sizeGb = downloadSize(body.url);
    const attrs = this.attrs(body, {
      os_distro: body.os_distro ?? 'unknown',
      os_version: body.os_version ?? 'unknown',
      min_disk: sizeGb,
      disk_format: diskFormatOf(url.pathname),
      volume_id: null,
      url: body.url,
      cow_format: body.cow_format ?? false,
    });
    return this.submit(caller, scope, 'download_image', body.name, attrs, sizeGb);
  }

  async delete(caller: Caller, projectId: number, regionId: number, id: string): Promise<TaskIds> {
    this.refusePublic(id, 'deleted');
    const { scope } = await this.ops.place(caller, projectId, regionId, 'has_kvm');
    const row = await this.records.idleRow(scope, id);
    if (attrsOf<ImageAttrs>(row).cow_format) {
      const made = (await this.ops.resources.all('volume', scope)).filter((v) => attrsOf<FromImage>(v).image_id === id);
      if (made.length > 0)
        throw new AppError('conflict', `Image ${id} was uploaded with cow_format: ${made.length} volume(s) made from it must be deleted first`);
    }
    return this.records.startTask(caller, scope, row, 'delete_image', { image_id: id }, { status: 'deleting' });
  }

  /** The image `id` as the boot rules see it, if the region offers it (public) or the project has it (private). */
  async boot(scope: Scope, region: RegionDefinition, id: string, store: ResourceStore = this.ops.resources): Promise<BootImage | undefined> {
    const pub = this.publicIn(id, region);
    if (pub)
      return {
        id,
        name: pub.name,
        status: 'active',
        kind: pub.kind,
        architecture: pub.architecture,
        os_type: pub.os_type,
        min_disk: pub.min_disk,
        min_ram: pub.min_ram,
        ssh_key: pub.ssh_key,
      };
    const row = await store.get('image', scope, id);
    if (!row) return undefined;
    const a = attrsOf<ImageAttrs>(row);
    return {
      id,
      name: row.name,
      status: row.status,
      kind: a.is_baremetal ? 'baremetal' : 'vm',
      architecture: a.architecture,
      os_type: a.os_type,
      min_disk: a.min_disk,
      min_ram: a.min_ram,
      ssh_key: a.ssh_key,
    };
  }

  private async bootInfo(scope: Scope, id: string): Promise<{ os_distro: string; os_version: string } | undefined> {
    const pub = PUBLIC_IMAGES.find((i) => i.id === id);
    if (pub) return pub;
    const row = await this.ops.resources.get('image', scope, id);
    return row ? attrsOf<ImageAttrs>(row) : undefined;
  }

  private attrs(
    body: Static<typeof ImageFromVolumeBody> | Static<typeof ImageUploadBody>,
    from: Pick<ImageAttrs, 'os_distro' | 'os_version' | 'min_disk' | 'disk_format' | 'volume_id' | 'url' | 'cow_format'>,
  ): ImageAttrs {
    return {
      architecture: body.architecture ?? 'x86_64',
      os_type: body.os_type ?? 'linux',
      min_ram: 0,
      hw_firmware_type: body.hw_firmware_type ?? null,
      hw_machine_type: body.hw_machine_type ?? null,
      is_baremetal: body.is_baremetal ?? false,
      ssh_key: body.ssh_key ?? 'allow',
      tags: body.tags ?? {},
      ...from,
    };
  }

  private async submit(caller: Caller, scope: Scope, type: string, name: string, attrs: ImageAttrs, sizeGb: number): Promise<TaskIds> {
    const id = randomUUID();
    const task = await this.ops.submit(caller, scope, type, { image_id: id }, async (trx, taskId) => {
      await new ResourceStore(trx).insert(newRow(scope, 'image', id, name, 'queued', taskId, attrs, this.ops.clock.now(), { size_gb: sizeGb }));
    });
    return { tasks: [task], id };
  }

  private publicIn(id: string, region: RegionDefinition): PublicImage | undefined {
    return PUBLIC_IMAGES.find((i) => i.id === id && offeredIn(i, region));
  }

  private refusePublic(id: string, what: string): void {
    if (PUBLIC_IMAGES.some((i) => i.id === id)) throw badRequest(`Image ${id} is a public image of the provider; only the project's own images can be ${what}`);
  }

  private presentPublic(image: PublicImage, scope: Scope): Image {
    return {
      id: image.id,
      name: image.name,
      description: null,
      status: 'active',
      visibility: 'public',
      architecture: image.architecture,
      os_type: image.os_type,
      os_distro: image.os_distro,
      os_version: image.os_version,
      min_disk: image.min_disk,
      min_ram: image.min_ram,
      size: image.size,
      disk_format: 'qcow2',
      hw_firmware_type: image.hw_firmware_type,
      hw_machine_type: image.hw_machine_type,
      is_baremetal: image.is_baremetal,
      ssh_key: image.ssh_key,
      gpu_driver: image.gpu_driver,
      gpu_driver_type: image.gpu_driver_type,
      gpu_driver_version: image.gpu_driver_version,
      display_order: image.display_order,
      currency_code: null,
      price_per_hour: null,
      price_per_month: null,
      price_status: null,
      tags_v2: [],
      project_id: scope.projectId,
      region_id: scope.regionId,
      region: this.ops.regions.name(scope.regionId),
      creator_task_id: null,
      task_id: null,
      created_at: zonedTime(CATALOGUE_DATE),
      updated_at: zonedTime(CATALOGUE_DATE),
    };
  }

  async present(row: ResourceRow): Promise<Image> {
    const a = attrsOf<ImageAttrs>(row);
    return {
      id: row.id,
      name: row.name,
      description: null,
      status: row.status,
      visibility: 'private',
      architecture: a.architecture,
      os_type: a.os_type,
      os_distro: a.os_distro,
      os_version: a.os_version,
      min_disk: a.min_disk,
      min_ram: a.min_ram,
      size: row.ready ? row.size_gb * GIB : 0,
      disk_format: a.disk_format,
      hw_firmware_type: a.hw_firmware_type,
      hw_machine_type: a.hw_machine_type,
      is_baremetal: a.is_baremetal,
      ssh_key: a.ssh_key,
      gpu_driver: null,
      gpu_driver_type: null,
      gpu_driver_version: null,
      display_order: null,
      currency_code: null,
      price_per_hour: null,
      price_per_month: null,
      price_status: null,
      tags_v2: tagList(a.tags),
      project_id: Number(row.project_id),
      region_id: Number(row.region_id),
      region: this.ops.regions.name(Number(row.region_id)),
      creator_task_id: row.creator_task_id,
      task_id: row.task_id,
      created_at: zonedTime(row.created_at),
      updated_at: zonedTime(row.updated_at),
    };
  }

  /** A private image's record, or a 404 (for its task module's callers). */
  async row(scope: Scope, id: string): Promise<ResourceRow> {
    const row = await this.ops.resources.get('image', scope, id);
    if (!row) throw notFound(`Image ${id}`);
    return row;
  }
}

/** Prices when asked for: public Linux images are free, Windows carries its licence, private images their storage. */
function withPrices(image: Image, include: boolean): Image {
  if (!include) return image;
  const perHour = image.visibility === 'public' ? (image.os_type === 'windows' ? 0.0274 : 0) : Math.round(((image.size ?? 0) / GIB) * 0.00005 * 1e6) / 1e6;
  return { ...image, currency_code: 'EUR', price_per_hour: perHour, price_per_month: Math.round(perHour * 730 * 100) / 100, price_status: 'show' };
}

/** The size of a downloaded image: 1 to 8 GiB, the same for the same URL (nothing is fetched). */
function downloadSize(url: string): number {
  let h = 0;
  for (const c of url) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return 1 + (h % 8);
}

function diskFormatOf(path: string): string {
  const ext = path.toLowerCase().split('.').pop() ?? '';
  if (ext === 'img' || ext === 'raw') return 'raw';
  return ['qcow2', 'iso', 'vmdk', 'vhd', 'vhdx', 'vdi'].includes(ext) ? ext : 'qcow2';
}
