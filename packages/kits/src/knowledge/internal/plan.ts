/**
 * What a publish or retract call changes, decided against what the publication knows is stored: which
 * documents are skipped (and why), their new rows and passages, the batches (one store transaction
 * each), and the receipt.
 */
import type { KnowledgeDocumentChange, KnowledgeDocumentRecord } from '../knowledge-store.js'
import type {
  KnowledgeMaterial,
  KnowledgePublished,
  KnowledgeReceipt,
  KnowledgeRetracted,
  KnowledgeSkipped,
} from '../knowledge-types.js'
import { contentHash } from './material.js'
import {
  type PassageSettings,
  type PassageSplitter,
  type SplitPassage,
  settingsKey,
  splitMaterial,
} from './passages.js'

/** What the publication remembers of a document (published, or retracted with its last revision). */
export interface DocumentState {
  readonly record: KnowledgeDocumentRecord
  readonly passageIds: readonly string[]
  readonly hashes: readonly string[]
}

/** One document of a call that changes the store. */
export interface Change {
  readonly change: KnowledgeDocumentChange
  /** The new passages (none for a retraction). */
  readonly split: readonly SplitPassage[]
  /** What the document was before. */
  readonly before: DocumentState | undefined
}

/** What a call will do. */
export interface Plan {
  readonly skipped: readonly KnowledgeSkipped[]
  readonly changes: readonly Change[]
}

/** True when the document is published (not retracted). */
function isLive(state: DocumentState | undefined): boolean {
  return state !== undefined && state.record.retractedAtMs === undefined
}

/** Skips unchanged materials; the others get their next revision and passages. */
export function planPublish(
  materials: readonly KnowledgeMaterial[],
  documents: ReadonlyMap<string, DocumentState>,
  settings: PassageSettings,
  publishedAtMs: number,
  splitter: PassageSplitter,
): Plan {
  const key = settingsKey(settings)
  const skipped: KnowledgeSkipped[] = []
  const changes: Change[] = []
  for (const material of materials) {
    const hash = contentHash(material, key)
    const before = documents.get(material.id)
    if (before !== undefined && isLive(before) && before.record.contentHash === hash) {
      skipped.push(Object.freeze({ id: material.id, reason: 'unchanged', revision: before.record.revision }))
      continue
    }
    const revision = (before?.record.revision ?? 0) + 1
    const split = splitMaterial(material, revision, settings, splitter)
    const record: KnowledgeDocumentRecord = Object.freeze({
      id: material.id,
      revision,
      contentHash: hash,
      ...(material.title !== undefined ? { title: material.title } : {}),
      ...(material.metadata !== undefined ? { metadata: material.metadata } : {}),
      passageCount: split.length,
      publishedAtMs,
    })
    const change: KnowledgeDocumentChange = Object.freeze({
      expectedRevision: before?.record.revision ?? 0,
      record,
      passages: Object.freeze(split.map((s) => s.record)),
    })
    changes.push({ change, split, before })
  }
  return { skipped, changes }
}

/** Published documents get a retracted row (same revision, no passages); the others are skipped. */
export function planRetract(
  ids: readonly string[],
  documents: ReadonlyMap<string, DocumentState>,
  retractedAtMs: number,
): Plan {
  const skipped: KnowledgeSkipped[] = []
  const changes: Change[] = []
  for (const id of ids) {
    const before = documents.get(id)
    if (before === undefined || !isLive(before)) {
      skipped.push(Object.freeze({ id, reason: 'not-published', revision: before?.record.revision }))
      continue
    }
    const change: KnowledgeDocumentChange = Object.freeze({
      expectedRevision: before.record.revision,
      record: Object.freeze({ ...before.record, passageCount: 0, retractedAtMs }),
      passages: Object.freeze([]),
    })
    changes.push({ change, split: [], before })
  }
  return { skipped, changes }
}

/** How many passages a change writes or removes (what a batch is sized by). */
export function passagesOf(change: Change): number {
  return change.split.length > 0 ? change.split.length : (change.before?.passageIds.length ?? 0)
}

/** Groups changes into batches of about `limit` passages: a document is never split, and counts at least 1. */
export function batchesOf(changes: readonly Change[], limit: number): Change[][] {
  const out: Change[][] = []
  let current: Change[] = []
  let count = 0
  for (const change of changes) {
    current.push(change)
    count += Math.max(1, passagesOf(change))
    if (count >= limit) {
      out.push(current)
      current = []
      count = 0
    }
  }
  if (current.length > 0) out.push(current)
  return out
}

/** The receipt of a call that applied `plan` in `batches` transactions. */
export function receiptOf(
  publicationId: string,
  action: 'publish' | 'retract',
  plan: Plan,
  counts: { readonly embedded: number; readonly reused: number; readonly batches: number },
): KnowledgeReceipt {
  const published: KnowledgePublished[] = []
  const retracted: KnowledgeRetracted[] = []
  let passageCount = 0
  for (const { change, before } of plan.changes) {
    if (action === 'publish') {
      passageCount += change.passages.length
      published.push(
        Object.freeze({
          id: change.record.id,
          revision: change.record.revision,
          previousRevision: before !== undefined && isLive(before) ? before.record.revision : undefined,
          contentHash: change.record.contentHash,
          passageIds: Object.freeze(change.passages.map((p) => p.id)),
        }),
      )
    } else if (before !== undefined) {
      retracted.push(
        Object.freeze({
          id: before.record.id,
          revision: before.record.revision,
          passageCount: before.passageIds.length,
        }),
      )
    }
  }
  return Object.freeze({
    publicationId,
    action,
    published: Object.freeze(published),
    retracted: Object.freeze(retracted),
    skipped: Object.freeze([...plan.skipped]),
    passageCount,
    embedded: counts.embedded,
    reused: counts.reused,
    batches: counts.batches,
  })
}
