// build(deps): the shared plugins, then the explicit list of products. No globals: everything the app
// uses arrives in deps or is made here, so tests can build as many isolated apps as they like.
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Config } from './config.js';
import { createCdn } from './cdn/index.js';
import { createCdnAnalytics } from './cdn-analytics/index.js';
import { type CatalogueEngine, createCatalogueEngine } from './catalogue-engine/index.js';
import { CATALOGUE_FORMATS, CATALOGUE_FORMATS_MODULE } from './catalogue-engine/validate.js';
import { createCloud } from './cloud/index.js';
import { createDns } from './dns/index.js';
import { createConsole } from './console/index.js';
import { type ControlProduct, createControl } from './control/index.js';
import { OperatorToken } from './control/operator.js';
import { createIam, type IamProduct } from './iam/index.js';
import { createSecurity } from './security/index.js';
import { createEdge } from './edge/index.js';
import { createWaap, type WaapProduct } from './waap/index.js';
import { registerAuth } from './platform/auth/plugin.js';
import type { Clock } from './platform/clock.js';
import type { Database } from './platform/db/index.js';
import { registerErrorHandling } from './platform/error-handler.js';
import { registerCors } from './platform/cors.js';
import { answerHeadAsGet, registerRequestContext, requestIdFor, ROUTER_OPTIONS, trackRoutes } from './platform/http.js';
import { JsonBodyReading, registerJsonParser } from './platform/json-body.js';
import { builtSchemaCode, type SchemaCode } from './platform/schema-code.js';
import { registerLandingPage } from './platform/landing.js';
import { loggerOptions } from './platform/logging.js';
import { registerMetrics } from './platform/metrics.js';
import { lazyRequestLoggers } from './platform/request-logger.js';
import { serverLimits } from './platform/limits.js';
import { registerRateLimit } from './platform/rate-limit.js';
import { registerOpenApi } from './platform/openapi.js';
import type { Product } from './platform/product.js';
import { registerTaskFaultSlot } from './platform/task-faults.js';
import { createSchemaCompiler, createSerializerCompiler, registerQueryArrays } from './platform/validation.js';
import type { WarmUpStep } from './platform/warm-up.js';
import { VERSION } from './version.js';
import { implementationOf } from './control/info/coverage.js';

export interface AppDeps {
  config: Config;
  db: Database;
  clock: Clock;
  /** Folder of the built web console (default: dist/console of this package). */
  consoleDir?: string;
  /** Monotonic milliseconds for the rate limiter (default: performance.now); tests pass their own. */
  monotonicNow?: () => number;
  /**
   * Route validators and serialisers compiled ahead of time (default: the build's dist/schema-code when
   * running the built package, none from the sources; null: none).
   */
  schemaCode?: SchemaCode | null;
}

export interface Edgeplane {
  app: FastifyInstance;
  iam: IamProduct;
  control: ControlProduct;
  /** The request log's queries, ingestion and maintenance jobs, for in-process use and tests. */
  waap: WaapProduct;
  /** The catalogue engine: which reference operations it serves. */
  catalogue: CatalogueEngine;
  /** Set when this start generated the operator token (print it once). */
  generatedOperatorToken?: string;
  /** What first requests would make for the rest, in order (run by startServer once it listens). */
  warmUp: WarmUpStep[];
}

export async function build(deps: AppDeps): Promise<Edgeplane> {
  const { config, db } = deps;
  const app = Fastify({
    logger: await loggerOptions(config),
    logController: new LogController({ disableRequestLogging: !config.logRequests }),
    ...(config.logRequests ? {} : { childLoggerFactory: lazyRequestLoggers }),
    bodyLimit: config.bodyLimit,
    genReqId: requestIdFor,
    requestIdHeader: false,
    routerOptions: { ...ROUTER_OPTIONS },
    // HEAD is answered by each GET route through answerHeadAsGet, not a HEAD route per GET.
    exposeHeadRoutes: false,
    // No load timer per plugin: every route Fastify registers is an avvio plugin of its own (its
    // `after` step), and a timer each (set, debug-logged, cleared) showed as 20-40 ms of a start-up
    // profile. Our plugins are all synchronous or awaited in build(); none can stall unseen.
    pluginTimeout: 0,
    ...serverLimits(config),
  });
  const ahead = deps.schemaCode === undefined ? builtSchemaCode({ [CATALOGUE_FORMATS_MODULE]: CATALOGUE_FORMATS }) : (deps.schemaCode ?? undefined);
  // The thread clients' large JSON bodies are read in; the provider API's bodies of many items are also validated there first.
  const largeBodies = new JsonBodyReading();
  app.addHook('onClose', () => largeBodies.close());
  app.setValidatorCompiler(createSchemaCompiler(ahead, (check) => largeBodies.check(check)));
  app.setSerializerCompiler(createSerializerCompiler(ahead));

  answerHeadAsGet(app);
  const routes = trackRoutes(app);
  const internal = registerRequestContext(app);
  const iam = createIam(deps);
  const control = createControl({ ...deps, routes, iam });
  const waap = createWaap({ ...deps, schemaCode: ahead });
  const cdn = createCdn(deps);
  // A CDN resource whose waap option is on brings its host to the WAAP product as a domain.
  cdn.onWaapChange(({ clientId, cname, enabled }) => waap.domains.protectCdnHost(clientId, cname, enabled));
  const cloud = createCloud(deps);
  const catalogue = createCatalogueEngine({ ...deps, routes, internal, tasks: cloud.engine, schemaCode: ahead });
  // The explicit list of products, in registration order.
  const products: Product[] = [
    iam,
    createCdnAnalytics(deps),
    cdn,
    createSecurity({ ...deps, accounts: iam.accounts }),
    createEdge({ ...deps, accounts: iam.accounts }),
    waap,
    cloud,
    createDns(deps),
    control,
    createConsole({ dir: deps.consoleDir }),
    // Last: it serves every reference operation that the products above did not register.
    catalogue,
  ];

  const { operator, generated } = await OperatorToken.load(db.kysely, config.adminToken);
  // Before authentication: a preflight carries no credentials.
  registerCors(app, config.cors);
  registerJsonParser(app, largeBodies);
  registerQueryArrays(app);
  registerTaskFaultSlot(app);
  registerAuth(app, iam.tokens, operator);
  registerRateLimit(app, { rate: config.rateLimit, burst: config.rateLimitBurst, now: deps.monotonicNow });
  control.registerHooks(app);
  registerErrorHandling(
    app,
    products.flatMap((p) => [...p.prefixes.map((prefix) => ({ prefix, envelope: p.envelope })), ...(p.surfaces ?? [])]),
    routes.allowedMethods,
  );
  registerMetrics(app);
  await registerOpenApi(app, {
    version: VERSION,
    tags: products.flatMap((p) => p.tags ?? []),
    implementationOf,
    dispatched: () => catalogue.documented(),
  });
  registerLandingPage(app, VERSION);
  for (const product of products) await product.register(app);
  await app.ready();
  const warmUp: WarmUpStep[] = products.flatMap((p) => p.warmUp ?? []);
  if (ahead?.prepare) warmUp.unshift({ name: "the index of the build's compiled code", run: () => ahead.prepare?.() });
  return { app, iam, control, waap, catalogue, generatedOperatorToken: generated, warmUp };
}
