import { AgentCoreError } from '@agent-core/core'
import type { MockHttpResponse } from '../mock-http.js'

/** The OpenAI error `type` conventionally used for a status. */
export function errorTypeFor(status: number): string {
  if (status === 401) return 'invalid_request_error'
  if (status === 403) return 'permission_error'
  if (status === 429) return 'rate_limit_error'
  if (status >= 500) return 'server_error'
  return 'invalid_request_error'
}

export interface OpenAIErrorFields {
  readonly type?: string | undefined
  readonly code?: string | null | undefined
  readonly param?: string | null | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Extra fields placed inside the `error` object (e.g. budget usage). */
  readonly extra?: Readonly<Record<string, unknown>> | undefined
}

/** An OpenAI-shaped error response: `{ error: { message, type, param, code } }`. */
export function openAIErrorResponse(
  status: number,
  message: string,
  fields: OpenAIErrorFields = {},
): MockHttpResponse {
  const error = {
    message,
    type: fields.type ?? errorTypeFor(status),
    param: fields.param ?? null,
    code: fields.code ?? null,
    ...(fields.extra ?? {}),
  }
  return {
    status,
    headers: { 'content-type': 'application/json', ...(fields.headers ?? {}) },
    firstByteDelayMs: 0,
    body: { type: 'text', text: JSON.stringify({ error }) },
  }
}

/**
 * A request MockGPT refuses, thrown inside the engine and turned into an OpenAI-shaped error response at
 * the edge. `details` carries the status and the OpenAI error fields.
 */
export class MockRequestError extends AgentCoreError {
  static override readonly code = 'mock-request-rejected'
  declare readonly details: Readonly<{
    status: number
    type?: string
    code?: string | null
    param?: string | null
  }>
  constructor(
    status: number,
    message: string,
    fields: { type?: string; code?: string | null; param?: string | null; cause?: unknown } = {},
  ) {
    super('mock-request-rejected', message, {
      details: { status, type: fields.type, code: fields.code, param: fields.param },
      cause: fields.cause,
    })
  }

  toResponse(): MockHttpResponse {
    return openAIErrorResponse(this.details.status, this.message, this.details)
  }
}

/** A 400 `invalid_request_error` naming the offending parameter. */
export function badRequest(
  message: string,
  param: string | null = null,
  code: string | null = null,
): MockRequestError {
  return new MockRequestError(400, message, { param, code })
}
