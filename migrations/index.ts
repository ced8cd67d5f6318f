// Every migration, in order. Names sort: a new one gets the next number.
import type { MigrationSet } from '../src/platform/db/migrate.js';
import { accounts } from './001_accounts.js';
import { cdnAnalytics } from './006_cdn_analytics.js';
import { cdn } from './002_cdn.js';
import { cloud } from './003_cloud.js';
import { securityEdge } from './005_security_edge.js';
import { waap } from './004_waap.js';
import { waapCounters } from './007_waap_counters.js';
import { waapBlocks } from './008_waap_blocks.js';
import { catalogueRecords } from './010_catalogue_records.js';
import { dns } from './011_dns.js';
import { cdnResources } from './012_cdn_resources.js';
import { cloudUsage } from './013_cloud_usage.js';
import { cloudQuotaHold } from './014_cloud_quota_hold.js';
import { jsonExtract } from './015_json_extract.js';
import { cloudResourcesHot } from './016_cloud_resources_hot.js';
import { sqliteWholeKindIndexes } from './017_sqlite_whole_kind_indexes.js';
import { cloudUsageAtCommit } from './018_cloud_usage_at_commit.js';
import { cloudQuotaCheck } from './019_cloud_quota_check.js';

export const migrations: MigrationSet = (engine) => ({
  '001_accounts': accounts(engine),
  '006_cdn_analytics': cdnAnalytics(engine),
  '002_cdn': cdn(engine),
  '003_cloud': cloud(engine),
  '005_security_edge': securityEdge(engine),
  '004_waap': waap(engine),
  '007_waap_counters': waapCounters(engine),
  '008_waap_blocks': waapBlocks(engine),
  '010_catalogue_records': catalogueRecords(engine),
  '011_dns': dns(engine),
  '012_cdn_resources': cdnResources(engine),
  '013_cloud_usage': cloudUsage(engine),
  '014_cloud_quota_hold': cloudQuotaHold(engine),
  '015_json_extract': jsonExtract(engine),
  '016_cloud_resources_hot': cloudResourcesHot(engine),
  '017_sqlite_whole_kind_indexes': sqliteWholeKindIndexes(engine),
  '018_cloud_usage_at_commit': cloudUsageAtCommit(engine),
  '019_cloud_quota_check': cloudQuotaCheck(engine),
});
