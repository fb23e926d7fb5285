import { assertNotThenable } from '@agent-core/core'
import type { KnowledgeProgressListener } from '../knowledge-definition.js'
import type { KnowledgeProgress } from '../knowledge-types.js'

/** The counts of a running call, reported through `onProgress` (synchronously, between steps). */
export class Progress {
  documentsDone = 0
  passagesDone = 0
  embedded = 0

  constructor(
    readonly publicationId: string,
    readonly action: KnowledgeProgress['action'],
    readonly listener: KnowledgeProgressListener | undefined,
    readonly documents: number,
    readonly passages: number,
    /** An estimate until the call ends: raised when more had to be embedded. */
    public toEmbed: number,
  ) {}

  report(phase: KnowledgeProgress['phase']): void {
    if (this.listener === undefined) return
    this.toEmbed = Math.max(this.toEmbed, this.embedded)
    const progress: KnowledgeProgress = Object.freeze({
      publicationId: this.publicationId,
      action: this.action,
      phase,
      documents: this.documents,
      documentsDone: this.documentsDone,
      passages: this.passages,
      passagesDone: this.passagesDone,
      toEmbed: this.toEmbed,
      embedded: this.embedded,
    })
    assertNotThenable(this.listener(progress), 'onProgress')
  }
}
