/**
 * The error body of every error answer (error-handler.ts writes it) as one named schema,
 * `ErrorBody`, and the error responses of a route built from it. The schema is added to the app
 * once (installErrorBodySchema, called by installErrorHandler), so every route refers to the same
 * component and a generated client has one error class, not one per operation.
 */
import type { FastifyInstance } from 'fastify';

export const ERROR_BODY_ID = 'ErrorBody';

/** What errorBody() produces; the response serializer writes exactly these fields. */
export const ERROR_BODY_SCHEMA = {
  $id: ERROR_BODY_ID,
  type: 'object',
  description: 'Every error answer: a stable code for programs and a message for people.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'stable error code (BAD_REQUEST, UNAUTHENTICATED, ...)' },
        message: { type: 'string', description: 'what went wrong; never holds a secret' },
        field: { type: 'string', description: 'the request field at fault, when one is' },
        upstream: {
          type: 'object',
          additionalProperties: true,
          description:
            "the upstream service's own error (errorType, errorCode, errorMessage), when it refused",
        },
      },
    },
  },
} as const;

/** Error statuses a route can document; `5XX` stands for any server error. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 406 | 409 | 413 | 415 | 422 | 429 | 503 | '5XX';

const ERROR_DESCRIPTIONS: Readonly<Record<ErrorStatus, string>> = {
  400: 'Bad request: a parameter or body field is missing or invalid (the message and `field` name it)',
  401: 'No API key, or an unknown or revoked one',
  403: 'The API key lacks the scope this route needs',
  404: 'The thing asked for does not exist',
  406: 'None of the media types in Accept can be served (the message lists those that can)',
  409: 'The request conflicts with the current state',
  413: 'The request body is too large',
  415: 'The request body is not application/json',
  422: 'Refused by a check before anything was sent (pre-trade limits); `field` names the value at fault',
  429: "The key's request budget is spent; Retry-After says when to retry",
  503: 'Temporarily unavailable (store, upstream or capacity); Retry-After says when to retry when known',
  '5XX': 'Server error',
};

export function installErrorBodySchema(app: FastifyInstance): void {
  if (!app.getSchema(ERROR_BODY_ID)) app.addSchema(ERROR_BODY_SCHEMA);
}

/** The response entries of `statuses`, each the ErrorBody as JSON. */
export function errorResponses(statuses: Iterable<ErrorStatus>): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const status of statuses) {
    responses[String(status)] = {
      description: ERROR_DESCRIPTIONS[status],
      content: { 'application/json': { schema: { $ref: `${ERROR_BODY_ID}#` } } },
    };
  }
  return responses;
}
