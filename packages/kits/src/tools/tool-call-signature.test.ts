import { InvalidInputError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type SignableToolCall, signToolCall, verifyToolCallSignature } from './index.js'

const KEY = 'a-signing-key-of-at-least-16-bytes'
const OTHER = new Uint8Array(32).fill(7)

const id = fc.string({ minLength: 1, maxLength: 12 })
const call = fc.record(
  {
    runId: id,
    toolCallId: id,
    invocationId: id,
    toolId: id,
    input: fc.jsonValue(),
  },
  { requiredKeys: ['toolCallId', 'invocationId', 'toolId', 'input'] },
) as fc.Arbitrary<SignableToolCall>

describe('tool call signatures', () => {
  it('verify for the signed call and fail when any bound field changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        call,
        fc.constantFrom('runId', 'toolCallId', 'invocationId', 'toolId', 'input'),
        async (signed, field) => {
          const signature = await signToolCall(signed, KEY)
          expect(await verifyToolCallSignature(signed, signature, [KEY])).toBe(true)
          expect(await verifyToolCallSignature(JSON.parse(JSON.stringify(signed)), signature, [KEY])).toBe(
            true,
          )
          const changed = {
            ...signed,
            [field]:
              field === 'input' ? { changed: signed.input } : `${String(signed[field as 'toolId'] ?? '')}x`,
          }
          expect(await verifyToolCallSignature(changed, signature, [KEY])).toBe(false)
          expect(await verifyToolCallSignature(signed, signature, [OTHER])).toBe(false)
          expect(await verifyToolCallSignature(signed, signature, [OTHER, KEY])).toBe(true)
        },
      ),
      { numRuns: 150 },
    )
  })

  it('ignores key order in the input and refuses malformed signatures without throwing', async () => {
    const signed = {
      toolCallId: 'c',
      invocationId: 'i',
      toolId: 't',
      input: { a: 1, b: [2, { c: 3, d: 4 }] },
    }
    const signature = await signToolCall(signed, KEY)
    const reordered = { ...signed, input: { b: [2, { d: 4, c: 3 }], a: 1 } }
    expect(await verifyToolCallSignature(reordered, signature, [KEY])).toBe(true)
    for (const bad of [
      undefined,
      42,
      '',
      'v1.',
      'v2.abc',
      'v1.!!!',
      `${signature}A`,
      signature.slice(0, -2),
    ]) {
      expect(await verifyToolCallSignature(signed, bad, [KEY])).toBe(false)
    }
  })

  it('refuses weak keys and malformed calls with typed errors', async () => {
    const signed = { toolCallId: 'c', invocationId: 'i', toolId: 't', input: null }
    await expect(signToolCall(signed, 'short')).rejects.toThrow(/at least 16/)
    await expect(signToolCall(signed, 42 as never)).rejects.toThrow(InvalidInputError)
    await expect(signToolCall({ ...signed, input: new Date() } as never, KEY)).rejects.toThrow(/call\.input/)
    await expect(verifyToolCallSignature(signed, 'v1.x', [])).rejects.toThrow(/non-empty array/)
    const aes = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 128 }, false, ['encrypt'])
    await expect(signToolCall(signed, aes)).rejects.toThrow(/HMAC CryptoKey/)
    const hmac = await crypto.subtle.importKey('raw', OTHER, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ])
    const signature = await signToolCall(signed, hmac)
    expect(await verifyToolCallSignature(signed, signature, [OTHER])).toBe(true)
  })
})
