import assert from 'node:assert/strict'
import { defineContentProjection } from '@agent-core/kits/projection'

const note = defineContentProjection<string>({ id: 'note', render: (s) => s, marker: '…' })
assert.deepEqual(note.project({ value: 'hello world', maxChars: 6 }), { text: 'hello…', truncated: true })
