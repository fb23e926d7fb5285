import { describeValue, type OperationContext } from '@agent-core/core'
import { type ArtifactReference, ArtifactUnavailableError } from '@agent-core/kits/artifacts'
import { ResourceSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js'
import type { McpResourceContents } from '../mcp-content.js'
import { McpProtocolError } from '../mcp-errors.js'
import type { McpResource, McpResourceInfo } from '../mcp-resource.js'
import { issueLines } from './errors.js'
import type { Session } from './session.js'

/** The artifact id of a resource URI: the first 16 hex digits of its SHA-256. */
async function artifactIdOf(uri: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(uri))
  return Array.from(new Uint8Array(digest).subarray(0, 8), (byte) => byte.toString(16).padStart(2, '0')).join(
    '',
  )
}

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T
}

/**
 * The resources a server listed, by artifact id. Reading goes only to URIs the server listed: a reference
 * selects a listed resource by its id, never by a URL of its own.
 */
export class ResourceIndex {
  #byId = new Map<string, McpResourceInfo>()
  #listing: Promise<readonly McpResourceInfo[]> | undefined
  #stale = true
  constructor(readonly session: Session) {}

  /** A `resources/list_changed` notification: the next lookup lists again. */
  invalidate(): void {
    this.#stale = true
  }

  get offered(): boolean {
    return this.session.client.getServerCapabilities()?.resources !== undefined
  }

  list(signal?: AbortSignal): Promise<readonly McpResourceInfo[]> {
    this.#listing ??= this.#list(signal).finally(() => {
      this.#listing = undefined
    })
    return this.#listing
  }

  async #list(signal: AbortSignal | undefined): Promise<readonly McpResourceInfo[]> {
    const { session } = this
    if (!this.offered) return Object.freeze([])
    this.#stale = false
    const infos: McpResourceInfo[] = []
    const seen = new Set<string>()
    let cursor: string | undefined
    try {
      do {
        const params = cursor === undefined ? {} : { cursor }
        const page = (await session.request(
          'resources/list',
          (options) => session.client.request({ method: 'resources/list', params }, ResultSchema, options),
          { signal, timeoutMs: session.requestTimeoutMs },
        )) as { resources?: unknown; nextCursor?: unknown }
        if (!Array.isArray(page.resources))
          throw this.#malformed(`resources is ${describeValue(page.resources)}`)
        for (const entry of page.resources) {
          const parsed = ResourceSchema.safeParse(entry)
          if (!parsed.success)
            throw this.#malformed((issueLines(parsed.error) ?? ['a malformed resource']).join('; '))
          const resource = parsed.data
          // Read from the entry itself: older SDKs' schemas drop size and annotations.
          const { size, annotations } = entry as { size?: unknown; annotations?: { lastModified?: unknown } }
          const lastModified =
            typeof annotations === 'object' && annotations !== null ? annotations.lastModified : undefined
          infos.push(
            Object.freeze(
              definedOnly({
                artifactId: await artifactIdOf(resource.uri),
                uri: resource.uri,
                name: resource.name,
                title: resource.title,
                description: resource.description,
                mimeType: resource.mimeType,
                size: typeof size === 'number' && Number.isFinite(size) && size >= 0 ? size : undefined,
                revision: typeof lastModified === 'string' && lastModified !== '' ? lastModified : undefined,
              }),
            ),
          )
        }
        const next = page.nextCursor
        if (next !== undefined && (typeof next !== 'string' || seen.has(next)))
          throw this.#malformed(`nextCursor ${describeValue(next)} is not a new cursor`)
        cursor = next
        if (cursor !== undefined) seen.add(cursor)
      } while (cursor !== undefined)
    } catch (error) {
      this.#stale = true
      throw error
    }
    this.#byId = new Map(infos.map((info) => [info.artifactId, info]))
    return Object.freeze(infos)
  }

  #malformed(problem: string): McpProtocolError {
    const { server } = this.session
    return new McpProtocolError(
      `MCP server "${server}" answered resources/list with a result the protocol does not allow: ${problem}. The server is at fault; fix or update it.`,
      { details: { server, method: 'resources/list', problems: [problem] } },
    )
  }

  async resolve(reference: ArtifactReference, context: OperationContext): Promise<McpResource> {
    const { session } = this
    const { server } = session
    let info = this.#byId.get(reference.artifactId)
    if (info === undefined || this.#stale) {
      await this.list(context.signal)
      info = this.#byId.get(reference.artifactId)
    }
    const unavailable = (reason: 'not-found' | 'revision-mismatch', message: string, current?: string) =>
      new ArtifactUnavailableError(message, {
        details: definedOnly({
          reason,
          resolverId: reference.resolverId,
          artifactId: reference.artifactId,
          revision: reference.revision,
          currentRevision: current,
          server,
        }),
      })
    if (info === undefined) {
      throw unavailable(
        'not-found',
        this.offered
          ? `MCP server "${server}" lists no resource with artifact id "${reference.artifactId}". Cite one of the artifact ids that listResources() gives.`
          : `MCP server "${server}" offers no resources, so it has no artifact "${reference.artifactId}".`,
      )
    }
    if (reference.revision !== undefined && reference.revision !== info.revision) {
      throw unavailable(
        'revision-mismatch',
        info.revision === undefined
          ? `MCP server "${server}" gives no revision for resource "${info.name}"; cite it without a revision.`
          : `Resource "${info.name}" of MCP server "${server}" is at revision ${info.revision}, not ${reference.revision}.`,
        info.revision,
      )
    }
    const { uri } = info
    const result = await session.request(
      'resources/read',
      (options) => session.client.readResource({ uri }, options),
      { signal: context.signal, timeoutMs: session.requestTimeoutMs },
    )
    // The SDK checked the result against the protocol's schema (a malformed one is an McpProtocolError).
    const contents = result.contents.map(
      (part): McpResourceContents =>
        Object.freeze(
          'text' in part && typeof part.text === 'string'
            ? definedOnly({ uri: part.uri, mimeType: part.mimeType, text: part.text })
            : definedOnly({ uri: part.uri, mimeType: part.mimeType, blob: (part as { blob: string }).blob }),
        ),
    )
    return Object.freeze({ ...info, contents: Object.freeze(contents) })
  }
}
