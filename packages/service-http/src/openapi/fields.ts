/**
 * The OpenAPI fields @fastify/swagger reads from route schemas. Its own augmentation of fastify's
 * types is declared from a CommonJS typing, which does not reach fastify's ESM typing under
 * NodeNext resolution, so the fields are declared again here for this package's ESM code.
 */
declare module 'fastify' {
  interface FastifySchema {
    hide?: boolean;
    tags?: readonly string[];
    summary?: string;
    description?: string;
    operationId?: string;
    security?: ReadonlyArray<{ [securityLabel: string]: readonly string[] }>;
  }
}

export {};
