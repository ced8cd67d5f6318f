// The system templates (default: true): common cases offered to every client, readable by all and
// changeable by none. They are part of the product, so they are defined here and written to the
// database whenever they are missing (first start, or after a full reset of the data).
import type { StoredOptions } from '../options/catalogue.js';

export interface SystemTemplate {
  /** Stable identity across restarts and resets (the row id may change after a reset). */
  key: string;
  name: string;
  rule: string;
  weight: number;
  options: StoredOptions;
}

export const SYSTEM_TEMPLATES: readonly SystemTemplate[] = [
  {
    key: 'no-cache-api',
    name: 'No cache for API paths',
    rule: '^/api/',
    weight: 10,
    options: { edge_cache_settings: { enabled: true, value: '0s' }, browser_cache_settings: { enabled: true, value: '0s' } },
  },
  {
    key: 'images-webp',
    name: 'Images: WebP conversion',
    rule: '/.*\\.(jpe?g|png)$',
    weight: 15,
    options: { image_stack: { enabled: true, avif_enabled: false, webp_enabled: true, quality: 85, png_lossless: false } },
  },
  {
    key: 'static-assets',
    name: 'Static assets: long cache, gzip',
    rule: '/.*\\.(css|js|mjs|svg|ico|woff2?|ttf|gif)$',
    weight: 20,
    options: {
      edge_cache_settings: { enabled: true, value: '30d' },
      browser_cache_settings: { enabled: true, value: '7d' },
      gzipOn: { enabled: true, value: true },
    },
  },
];

/** System templates belong to no client. */
export const SYSTEM_CLIENT_ID = 0;
