import type { DiagnosticEvent, DiagnosticSink } from '@agent-core/core'

/**
 * Collects diagnostic events in memory, for tests: hand its `sink` to a context or to `createDiagnostics`,
 * run the code, then read what it emitted.
 * @example
 * ```ts
 * import { createOperationContext } from '@agent-core/core'
 * import { MemoryDiagnosticSink } from '@agent-core/core/testing'
 * const memory = new MemoryDiagnosticSink()
 * const context = createOperationContext({ app: {}, diagnostics: memory.sink })
 * context.diagnostics.emit('thing-happened')
 * memory.kinds() // ['thing-happened']
 * ```
 */
export class MemoryDiagnosticSink {
  /** Every event received, in order. */
  readonly events: DiagnosticEvent[] = []
  /** The sink function to hand to `createDiagnostics` or a context. */
  readonly sink: DiagnosticSink = (event) => {
    this.events.push(event)
  }
  /** Event kinds in order, optionally only those under a scope prefix. */
  kinds(scopePrefix: readonly string[] = []): string[] {
    return this.ofScope(scopePrefix).map((e) => e.kind)
  }
  /** The events of one kind, in order. */
  ofKind(kind: string): DiagnosticEvent[] {
    return this.events.filter((e) => e.kind === kind)
  }
  /** The events whose scope starts with `scopePrefix`, in order. */
  ofScope(scopePrefix: readonly string[]): DiagnosticEvent[] {
    return this.events.filter((e) => scopePrefix.every((part, i) => e.scope[i] === part))
  }
  /** Forgets every event received so far. */
  clear(): void {
    this.events.length = 0
  }
}
