// The contract between fault injection (control API) and the products that create asynchronous tasks:
// when a declared "task failure" fault matches a request, the fault hook sets `request.injectedTaskFailure`
// to the reason, and the product's create/delete call plans its task to end in ERROR with that reason.

declare module 'fastify' {
  interface FastifyRequest {
    /** Reason the task created by this request must fail with, when a task-failure fault matched it. */
    injectedTaskFailure: string | null;
  }
}

export function registerTaskFaultSlot(app: import('fastify').FastifyInstance): void {
  app.decorateRequest('injectedTaskFailure', null);
}
