import assert from 'node:assert/strict'
import {
  definePromptTemplate,
  groundedPrompt,
  parseCitations,
  parseJsonObject,
} from '@agent-core/kits/prompts'

const template = definePromptTemplate('Hello {{name}} from {{city}}')
assert.equal(template.partial({ city: 'Brest' }).render({ name: 'Ada' }), 'Hello Ada from Brest')
assert.deepEqual(parseJsonObject('ok {"a": 1} bye'), { a: 1 })
const prompt = groundedPrompt('When?', ['At noon.'])
assert.equal(parseCitations('At noon [1].', prompt.passages).citations.length, 1)
