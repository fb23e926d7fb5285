import type { MockEndpoint, MockFault, MockReply } from '../script.js'

/** A recorded request while it is being answered (the public type is `RecordedRequest`). */
export interface MutableRecord {
  index: number
  testId: string | undefined
  method: string
  path: string
  headers: Record<string, string>
  body: unknown
  bodyBytes: number
  bodyOmitted: boolean
  endpoint: MockEndpoint | undefined
  status: number
  scriptEntry: number | undefined
  reply: MockReply['type'] | 'replay' | undefined
  faults: MockFault['type'][]
  scriptError: string | undefined
}

/** Bounds of the request journal. */
export interface JournalLimits {
  readonly maxEntries: number
  readonly maxBytes: number
}

/** Bytes a record costs beyond its body (headers, bookkeeping): an estimate, so the bound holds. */
const RECORD_OVERHEAD = 512

/**
 * The recorded requests of one scope, bounded by entries and bytes: the oldest are dropped (and counted)
 * when a new one would exceed a bound. A body larger than half the byte bound is not kept at all (the
 * record says how big it was), so one huge request cannot evict everything else.
 */
export class Journal {
  // A ring of retained records: a dropped record's slot is cleared at once, so nothing keeps it alive.
  private records: (MutableRecord | undefined)[] = []
  private head = 0
  private size = 0
  private sizes: number[] = []
  dropped = 0
  next = 0

  constructor(private readonly limits: JournalLimits) {}

  /** Whether a body of `bytes` is kept in the journal. */
  keepsBody(bytes: number): boolean {
    return bytes <= this.limits.maxBytes / 2
  }

  add(record: MutableRecord): void {
    let cost = RECORD_OVERHEAD + (record.bodyOmitted ? 0 : record.bodyBytes * 2)
    for (const name in record.headers) cost += name.length + (record.headers[name] as string).length
    this.records.push(record)
    this.sizes.push(cost)
    this.size += cost
    this.next = record.index + 1
    while (
      this.records.length - this.head > 1 &&
      (this.records.length - this.head > this.limits.maxEntries || this.size > this.limits.maxBytes)
    ) {
      this.size -= this.sizes[this.head] as number
      this.records[this.head] = undefined
      this.head++
      this.dropped++
    }
    if (this.head > 64 && this.head * 2 > this.records.length) {
      this.records = this.records.slice(this.head)
      this.sizes = this.sizes.slice(this.head)
      this.head = 0
    }
  }

  /** Every retained record, oldest first (a copy of the list, not of the records). */
  all(): MutableRecord[] {
    return this.records.slice(this.head) as MutableRecord[]
  }

  get length(): number {
    return this.records.length - this.head
  }

  get bytes(): number {
    return this.size
  }

  /** Retained records whose index is at least `from`, at most `limit` of them. */
  page(from: number, limit: number): { data: MutableRecord[]; hasMore: boolean } {
    const first = (this.records[this.head]?.index ?? this.next) as number
    const start = this.head + Math.max(0, from - first)
    const data = this.records.slice(start, start + limit) as MutableRecord[]
    return { data, hasMore: start + limit < this.records.length }
  }
}
