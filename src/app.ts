// build(deps): the shared plugins, then the explicit list of products. No globals: everything the app
// uses arrives in deps or is made here, so tests can build as many isolated apps as they like.
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Config } from './config.js';
import { createCdn } from './cdn/index.js';
import { createCdnAnalytics } from './cdn-analytics/index.js';
import { createCloud } from './cloud/index.js';
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
import { registerJsonParser, registerRequestContext, requestIdFor, trackRoutes } from './platform/http.js';
import { registerMetrics } from './platform/metrics.js';
import { lazyRequestLoggers } from './platform/request-logger.js';
import { serverLimits } from './platform/limits.js';
import { registerRateLimit } from './platform/rate-limit.js';
import { registerOpenApi } from './platform/openapi.js';
import type { Product } from './platform/product.js';
import { registerTaskFaultSlot } from './platform/task-faults.js';
import { createSchemaCompiler, createSerializerCompiler, registerQueryArrays } from './platform/validation.js';
import { VERSION } from './version.js';

export interface AppDeps {
  config: Config;
  db: Database;
  clock: Clock;
}

export interface Edgeplane {
  app: FastifyInstance;
  iam: IamProduct;
  control: ControlProduct;
  /** The request log's queries, ingestion and maintenance jobs, for in-process use and tests. */
  waap: WaapProduct;
  /** Set when this start generated the operator token (print it once). */
  generatedOperatorToken?: string;
}

export async function build(deps: AppDeps): Promise<Edgeplane> {
  const { config, db } = deps;
  const app = Fastify({
    logger: { level: config.logLevel },
    logController: new LogController({ disableRequestLogging: !config.logRequests }),
    ...(config.logRequests ? {} : { childLoggerFactory: lazyRequestLoggers }),
    bodyLimit: config.bodyLimit,
    genReqId: requestIdFor,
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    ...serverLimits(config),
  });
  app.setValidatorCompiler(createSchemaCompiler());
  app.setSerializerCompiler(createSerializerCompiler());

  const routes = trackRoutes(app);
  const iam = createIam(deps);
  const control = createControl({ ...deps, routes, iam });
  const waap = createWaap(deps);
  // The explicit list of products, in registration order.
  const products: Product[] = [
    iam,
    createCdnAnalytics(deps),
    createCdn(deps),
    createSecurity({ ...deps, accounts: iam.accounts }),
    createEdge({ ...deps, accounts: iam.accounts }),
    waap,
    createCloud(deps),
    control,
  ];

  const { operator, generated } = await OperatorToken.load(db.kysely, config.adminToken);
  registerRequestContext(app);
  registerJsonParser(app);
  registerQueryArrays(app);
  registerTaskFaultSlot(app);
  registerAuth(app, iam.tokens, operator);
  registerRateLimit(app, { rate: config.rateLimit, burst: config.rateLimitBurst });
  control.registerHooks(app);
  registerErrorHandling(
    app,
    products.flatMap((p) => p.prefixes.map((prefix) => ({ prefix, envelope: p.envelope }))),
    routes.allowedMethods,
  );
  registerMetrics(app);
  await registerOpenApi(app, { version: VERSION, tags: products.flatMap((p) => p.tags ?? []) });
  for (const product of products) await product.register(app);
  await app.ready();
  return { app, iam, control, waap, generatedOperatorToken: generated };
}
